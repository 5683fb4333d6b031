import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { BUILTIN_TOOL_VOCABULARY } from '../tools/index.js';
import { loadPolicyFile, parsePolicy } from './load-policy.js';
import type { PolicyVocabulary } from './policy-names.js';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** The built-in tools, a plugin that declares its permission type, and one that does not. */
const vocabulary: PolicyVocabulary = [
  ...BUILTIN_TOOL_VOCABULARY,
  { tool: 'open_incident', permissionTypes: ['incident'] },
  { tool: 'page_oncall' },
];

function problemsOf(lines: readonly string[], known: PolicyVocabulary = vocabulary): readonly string[] {
  try {
    parsePolicy([...lines, ''].join('\n'), 'policy.yml', known);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected the policy to be refused');
}

describe('a policy naming tools and permission types that do not exist', () => {
  it('refuses a rule for a misspelt tool, with the line and the tool meant', () => {
    expect(
      problemsOf([
        'rules:',
        '  - tool: run_shell',
        '    match: { command: "df -h" }',
        '    action: allow',
        '  - tool: run_shel',
        '    action: deny',
      ]),
    ).toEqual(['policy.yml:5: rules.1.tool: unknown tool "run_shel"; did you mean `run_shell`?']);
  });

  it('points a rule naming a permission type at the tool that asks under it', () => {
    expect(problemsOf(['rules:', '  - tool: sql_write', '    action: deny'])).toEqual([
      'policy.yml:2: rules.0.tool: "sql_write" is a permission type, but a rule names a tool; did you mean `sql_query`?',
    ]);
  });

  it('refuses a tool glob that matches no tool, listing the tools', () => {
    const [problem] = problemsOf(['rules:', '  - tool: "kubectl_*"', '    action: allow']);
    expect(problem).toMatch(/^policy\.yml:2: rules\.0\.tool: "kubectl_\*" matches no tool \(`run_shell`, /);
  });

  it('refuses misspelt keys in approvers, quorum and expiry overrides, each on its own line', () => {
    expect(
      problemsOf([
        'approvers:',
        '  overrides:',
        '    deplyo:',
        '      groups: [S0RELEASE1]',
        '  quorum:',
        '    shel: 2',
        'expiry:',
        '  overrides: { sql_writ: 2h }',
      ]),
    ).toEqual([
      expect.stringMatching(
        /^policy\.yml:3: approvers\.overrides\.deplyo: unknown tool or permission type "deplyo"; did you mean `deploy`\?/,
      ),
      expect.stringMatching(/^policy\.yml:6: approvers\.quorum\.shel: .*did you mean `shell`\?/),
      expect.stringMatching(/^policy\.yml:8: expiry\.overrides\.sql_writ: .*did you mean `sql_write`\?/),
    ]);
  });

  it('tells how a plugin declares its own permission type when one does not', () => {
    const [problem] = problemsOf(['approvers:', '  quorum: { paging: 2 }']);
    expect(problem).toContain("declares it in defineTool's permissionTypes (page_oncall declares none)");
  });

  it('accepts every built-in name (configured here or not), plugin tools and their declared types', () => {
    const policy = parsePolicy(
      [
        'rules:',
        '  - { tool: "sql_*", action: ask }',
        '  - { tool: open_incident, action: ask }',
        '  - { tool: page_oncall, action: ask }',
        'approvers:',
        '  overrides: { deploy: { groups: [S0RELEASE1] }, incident: { users: [U0INCIDENT] } }',
        '  quorum: { page_oncall: 2, http: 2, delegate: 1 }',
        'expiry:',
        '  overrides: { shell: 1h, sql_write: 2h, read_file: 5m }',
        '',
      ].join('\n'),
      'policy.yml',
      vocabulary,
    );
    expect(policy.approvers.quorum).toEqual({ page_oncall: 2, http: 2, delegate: 1 });
  });

  it('accepts the shipped example against the built-in tools', () => {
    expect(() =>
      loadPolicyFile(path.join(projectRoot, 'examples', 'policy.yml'), BUILTIN_TOOL_VOCABULARY),
    ).not.toThrow();
  });
});
