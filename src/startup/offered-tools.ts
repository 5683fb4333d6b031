import type { Logger } from 'pino';
import type { Tool } from '../agent/tool.js';
import type { McpToolSource } from '../mcp/index.js';

export interface OfferedToolsOptions {
  /** Built-ins, plugins and any given tools: the same for the life of the process. */
  readonly fixed: readonly Tool[];
  readonly mcp: McpToolSource;
  /** Wraps the tools for metrics and the log (see `observedTools`). */
  readonly observe: (tools: readonly Tool[]) => Tool[];
  readonly logger: Logger;
}

/**
 * The tools turns are offered: the fixed ones, then each MCP server's as it lists them now. The list is
 * made again only after a server said its tools changed; an MCP tool whose name another tool already has
 * is left out, with a warning, since the model could not tell the two apart.
 */
export function offeredTools(options: OfferedToolsOptions): () => readonly Tool[] {
  let cached: readonly Tool[] | undefined;
  const warned = new Set<string>();
  options.mcp.onChange(() => {
    cached = undefined;
  });
  return () => {
    if (cached) return cached;
    const names = new Set(options.fixed.map((tool) => tool.name));
    const listed = options.mcp.tools().filter((tool) => {
      if (!names.has(tool.name)) {
        names.add(tool.name);
        return true;
      }
      if (!warned.has(tool.name)) {
        warned.add(tool.name);
        options.logger.warn(
          { tool: tool.name },
          'an MCP tool has the name of another tool; it is not offered',
        );
      }
      return false;
    });
    cached = options.observe([...options.fixed, ...listed]);
    return cached;
  };
}
