import { pathToFileURL } from 'node:url';
import type { Tool } from '../agent/tool.js';
import { HoldfastError } from '../errors.js';

export class PluginLoadError extends HoldfastError {
  readonly code = 'plugin_invalid';
  constructor(
    readonly modulePath: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Plugin ${modulePath} could not be loaded: ${detail}`, options);
  }
}

/**
 * Loads `HOLDFAST_PLUGINS`: each module exports tools made with `defineTool` (as named exports, a default
 * export, or a default array). Anything else exported is ignored; a module exporting no tool is an error,
 * since it is almost certainly a wrong path.
 */
export async function loadPlugins(modulePaths: readonly string[]): Promise<Tool[]> {
  const tools: Tool[] = [];
  for (const modulePath of modulePaths) {
    let exported: Record<string, unknown>;
    try {
      exported = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
    } catch (error) {
      // Compiled holdfast runs on plain node, which does not load TypeScript (a tsx start does).
      const detail =
        (error as NodeJS.ErrnoException).code === 'ERR_UNKNOWN_FILE_EXTENSION' &&
        /\.[cm]?ts$/.test(modulePath)
          ? 'it is TypeScript, which `node dist/main.js` does not load. Compile it to JavaScript and list the .js file in HOLDFAST_PLUGINS, or start with `node --import tsx dist/main.js`'
          : error instanceof Error
            ? error.message
            : String(error);
      throw new PluginLoadError(modulePath, detail, { cause: error });
    }
    const found = Object.values(exported)
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .filter(isTool);
    if (found.length === 0)
      throw new PluginLoadError(modulePath, 'it exports no tool made with defineTool()');
    tools.push(...found);
  }
  return tools;
}

function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Tool>;
  return (
    typeof candidate.name === 'string' &&
    typeof candidate.execute === 'function' &&
    typeof candidate.parse === 'function' &&
    typeof candidate.permission === 'function' &&
    typeof candidate.jsonSchema === 'object'
  );
}
