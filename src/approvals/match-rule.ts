import type { PolicyRule } from './policy.js';

export interface RuleSubject {
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export type RuleMatch =
  | { readonly type: 'deny' | 'allow' | 'ask'; readonly rule: PolicyRule }
  | { readonly type: 'none' };

/**
 * Finds the rule that governs a call. Deny wins over everything; otherwise an `ask` rule beats an `allow`
 * (an explicit "always ask for this" must not be undone by a broader allow), and the first rule of the
 * winning kind is reported.
 */
export function matchRules(rules: readonly PolicyRule[], subject: RuleSubject): RuleMatch {
  let ask: PolicyRule | undefined;
  let allow: PolicyRule | undefined;
  for (const rule of rules) {
    if (!ruleMatches(rule, subject)) continue;
    if (rule.action === 'deny') return { type: 'deny', rule };
    if (rule.action === 'ask') ask ??= rule;
    else allow ??= rule;
  }
  if (ask) return { type: 'ask', rule: ask };
  if (allow) return { type: 'allow', rule: allow };
  return { type: 'none' };
}

function ruleMatches(rule: PolicyRule, subject: RuleSubject): boolean {
  if (!globMatches(rule.tool, subject.toolName)) return false;
  // A wildcard that lets something run must not swallow a second command: in allow rules `*` stops at
  // shell control characters, so `kubectl get *` never allows `kubectl get pods; rm -rf /`. A call that
  // fails to match an allow rule merely asks; deny and ask rules keep the greedy `*`, erring the safe way.
  const wildcard = rule.action === 'allow' ? 'confined' : 'greedy';
  for (const [name, pattern] of Object.entries(rule.match)) {
    if (!(name in subject.args)) return false;
    if (!globMatches(pattern, argumentText(subject.args[name]), wildcard)) return false;
  }
  return true;
}

/** An argument as patterns see it: a string as itself, anything else as its JSON. */
export function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * `?` matches one character and `*` any run of characters; with `confined`, neither matches a shell
 * control character (`; & | \` $ ( ) < >` or a newline). Everything else is literal; the whole text must match.
 */
export function globMatches(
  pattern: string,
  text: string,
  wildcard: 'greedy' | 'confined' = 'greedy',
): boolean {
  return globToRegExp(pattern, wildcard).test(text);
}

function globToRegExp(pattern: string, wildcard: 'greedy' | 'confined'): RegExp {
  const one = wildcard === 'greedy' ? '[\\s\\S]' : '[^;&|`$()<>\\n\\r]';
  const body = [...pattern]
    .map((char) => (char === '*' ? `${one}*` : char === '?' ? one : escapeRegExp(char)))
    .join('');
  return new RegExp(`^${body}$`);
}

function escapeRegExp(char: string): string {
  return /[\\^$.|+()[\]{}]/.test(char) ? `\\${char}` : char;
}
