import { createHash } from 'node:crypto';

const maxLength = 64;

/**
 * The name the model and the policy see for a server's tool: `<server>__<tool>`, with anything but
 * letters, digits, `_` and `-` made `_` (OpenAI's rule for function names). A name longer than 64 keeps
 * its start and ends in a digest of the whole, so two long names stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const whole = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (whole.length <= maxLength) return whole;
  const digest = createHash('sha256').update(`${server}\n${tool}`).digest('hex').slice(0, 8);
  return `${whole.slice(0, maxLength - digest.length - 1)}_${digest}`;
}
