import { describeState, type McpServerState } from './mcp-server-connection.js';

/** Each server's state as `/health` shows it: whether it is up, and in words why not. */
export function mcpHealth(
  states: Readonly<Record<string, McpServerState>>,
): Record<string, { readonly ok: boolean; readonly state: string }> {
  return Object.fromEntries(
    Object.entries(states).map(([name, state]) => [
      name,
      { ok: state.type === 'connected', state: describeState(state) },
    ]),
  );
}
