import type { Tool } from '../agent/tool.js';
import { ConfigError } from '../errors.js';

/** The tools as given, refusing two with one name: the model could not tell them apart. */
export function uniqueTools(tools: readonly Tool[]): Tool[] {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name))
      throw new ConfigError(`Two tools are named "${tool.name}"; rename one plugin tool.`);
    seen.add(tool.name);
  }
  return [...tools];
}
