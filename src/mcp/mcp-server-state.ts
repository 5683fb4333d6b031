/** Where a server stands, as the log and `/health` tell it. */
export type McpServerState =
  | { readonly type: 'connected'; readonly tools: number }
  | { readonly type: 'restarting'; readonly attempt: number; readonly error: string }
  | { readonly type: 'unavailable'; readonly error: string }
  | { readonly type: 'closed' };

export function describeState(state: McpServerState): string {
  switch (state.type) {
    case 'connected':
      return `connected, ${state.tools} tool${state.tools === 1 ? '' : 's'}`;
    case 'restarting':
      return `restarting (attempt ${state.attempt}: ${state.error})`;
    case 'unavailable':
      return `unavailable: ${state.error}`;
    case 'closed':
      return 'closed';
  }
}
