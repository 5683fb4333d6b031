import { createHash } from 'node:crypto';

/**
 * Hash of the exact argument text the model produced. Stored with the approval, checked again before the
 * approved call runs, so what a human allowed is byte for byte what executes.
 */
export function hashArguments(argumentsText: string): string {
  return createHash('sha256').update(argumentsText).digest('hex');
}

/**
 * What an approval binds a call to. For most tools, the exact argument text. A tool whose definition
 * comes from elsewhere (an MCP server) also binds its definition, so a card allowed for one definition
 * cannot run another: the hash then covers the definition and the parsed arguments, key order aside, so
 * the same value is found again from the arguments the approval row holds.
 */
export function hashCall(
  tool: { readonly definitionHash?: string },
  args: unknown,
  argumentsText: string,
): string {
  if (tool.definitionHash === undefined) return hashArguments(argumentsText);
  return createHash('sha256')
    .update(`${tool.definitionHash}\n${canonicalJson(args)}`)
    .digest('hex');
}

/** JSON with object keys sorted, so a value read back from any store hashes as it did when written. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(
            Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : inner,
    ) ?? 'null'
  );
}
