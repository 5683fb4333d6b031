import { createHash } from 'node:crypto';

/**
 * Hash of the exact argument text the model produced. Stored with the approval, checked again before the
 * approved call runs, so what a human allowed is byte for byte what executes.
 */
export function hashArguments(argumentsText: string): string {
  return createHash('sha256').update(argumentsText).digest('hex');
}
