import { didYouMean } from '../did-you-mean.js';
import { globMatches } from './match-rule.js';
import type { Policy } from './policy.js';

/**
 * The names a policy may use: every tool holdfast could run (built-in ones included even when not
 * configured here, so one policy file serves several deployments) and the permission types each asks
 * under. `permissionTypes` is undefined for a plugin tool that did not declare its own.
 */
export type PolicyVocabulary = readonly {
  readonly tool: string;
  readonly permissionTypes?: readonly string[];
}[];

/** A name in the policy that matches nothing holdfast knows; `path` locates it in the file. */
export interface PolicyNameIssue {
  readonly path: readonly (string | number)[];
  /** Whether `path` ends at a map key (overrides) rather than a value (a rule's `tool`). */
  readonly isKey: boolean;
  readonly message: string;
}

/**
 * Finds names that can never match: a rule for a misspelt tool would silently never apply, and an
 * override for a misspelt permission type would leave the default approvers, quorum or expiry in force.
 */
export function findUnknownPolicyNames(policy: Policy, vocabulary: PolicyVocabulary): PolicyNameIssue[] {
  const tools = vocabulary.map((entry) => entry.tool);
  const types = new Set(vocabulary.flatMap((entry) => entry.permissionTypes ?? []));
  // A tool that asks without declaring a permission type still asks under its own name.
  const keys = [...new Set([...tools, ...types])];
  const undeclared = vocabulary.filter((entry) => entry.permissionTypes === undefined).map((e) => e.tool);
  const issues: PolicyNameIssue[] = [];

  policy.rules.forEach((rule, index) => {
    const path = ['rules', index, 'tool'];
    if (/[*?]/.test(rule.tool)) {
      if (!tools.some((tool) => globMatches(rule.tool, tool))) {
        issues.push({ path, isKey: false, message: `"${rule.tool}" matches no tool (${listOf(tools)})` });
      }
      return;
    }
    if (tools.includes(rule.tool)) return;
    const askers = vocabulary.filter((entry) => entry.permissionTypes?.includes(rule.tool));
    const suggestion = askers[0]?.tool ?? didYouMean(rule.tool, tools);
    const what = types.has(rule.tool)
      ? `"${rule.tool}" is a permission type, but a rule names a tool`
      : `unknown tool "${rule.tool}"`;
    issues.push({ path, isKey: false, message: `${what}${hint(suggestion, tools)}` });
  });

  const tables: Array<[readonly string[], Record<string, unknown>]> = [
    [['approvers', 'overrides'], policy.approvers.overrides],
    [['approvers', 'quorum'], policy.approvers.quorum],
    [['expiry', 'overrides'], policy.expiry.overrides],
  ];
  for (const [at, table] of tables) {
    for (const key of Object.keys(table)) {
      if (keys.includes(key)) continue;
      const plugins =
        undeclared.length > 0
          ? `; a plugin tool that asks under a permission type of its own declares it in defineTool's permissionTypes (${undeclared.join(', ')} ${undeclared.length === 1 ? 'declares' : 'declare'} none)`
          : '';
      issues.push({
        path: [...at, key],
        isKey: true,
        message: `unknown tool or permission type "${key}"${hint(didYouMean(key, keys), keys)}${plugins}`,
      });
    }
  }
  return issues;
}

function hint(suggestion: string | undefined, known: readonly string[]): string {
  return suggestion ? `; did you mean \`${suggestion}\`?` : ` (known: ${listOf(known)})`;
}

function listOf(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(', ');
}
