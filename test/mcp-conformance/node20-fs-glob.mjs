// The conformance suite imports `globSync` from node:fs, which Node 22 added, for its `tier-check`
// command only; on Node 20 that import alone stops it from loading. For the suite's modules only, `fs`
// resolves to node:fs plus a `globSync` that says so if it is ever called. On Node 22 the real one is used.
import { register } from 'node:module';

if (!register) throw new Error('the MCP conformance suite needs Node 20.6 or later');
register(
  `data:text/javascript,${encodeURIComponent(`
const shim = 'holdfast-node20:fs';
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url !== shim) return next(url, context);
  return {
    format: 'module',
    shortCircuit: true,
    source: "import fs from 'node:fs'; export * from 'node:fs'; export default fs; " +
      "export const globSync = fs.globSync ?? (() => { throw new Error('fs.globSync needs Node 22'); });",
  };
}
`)}`,
);
