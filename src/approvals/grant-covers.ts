import type { Grant } from '../store/records.js';
import { argumentText, globMatches } from './match-rule.js';

export interface GrantSubject {
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsHash: string;
}

/**
 * Whether a grant lets this call run. A grant of one exact call covers only calls with the same argument
 * hash; a pattern grant covers calls whose named arguments match its globs the way an allow rule's do, so
 * `*` never crosses a shell control character (`kubectl get *` does not cover `kubectl get pods; rm -rf /`).
 */
export function grantCovers(
  grant: Pick<Grant, 'toolName' | 'match' | 'argsHash'>,
  subject: GrantSubject,
): boolean {
  if (grant.toolName !== subject.toolName) return false;
  if (grant.argsHash !== null) return grant.argsHash === subject.argsHash;
  if (grant.match === null) return true;
  return Object.entries(grant.match).every(
    ([name, pattern]) =>
      name in subject.args && globMatches(pattern, argumentText(subject.args[name]), 'confined'),
  );
}

/**
 * The pattern "Always allow" offers first, for the approver to accept or edit: the call's first text
 * argument with everything after its first two words replaced by `*` (`kubectl get pods -n web` →
 * `kubectl get *`). Undefined when the call has no text argument to generalise.
 */
export function proposeGrantPattern(
  args: Readonly<Record<string, unknown>>,
): { readonly argument: string; readonly pattern: string } | undefined {
  for (const [argument, value] of Object.entries(args)) {
    if (typeof value !== 'string' || value.trim() === '') continue;
    const words = value.trim().split(/\s+/);
    const kept = words.slice(0, 2).join(' ');
    return { argument, pattern: words.length > 2 ? `${kept} *` : value.trim() };
  }
  return undefined;
}

/** Why a pattern an approver typed cannot be a grant, or undefined when it can. */
export function grantPatternProblem(
  pattern: string,
  subject: GrantSubject,
  argument: string,
): string | undefined {
  if (pattern.trim() === '') return 'Type a pattern, or choose "this exact call".';
  if (/^[*?\s]*$/.test(pattern)) return 'A pattern of only wildcards allows everything; name the command.';
  if (!grantCovers({ toolName: subject.toolName, match: { [argument]: pattern }, argsHash: null }, subject))
    return 'This pattern does not cover the call you are approving; widen it or choose "this exact call".';
  return undefined;
}
