import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { ConfigError } from '../errors.js';
import { loadPolicyFile, parsePolicy } from './load-policy.js';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

function problemsOf(text: string): readonly string[] {
  try {
    parsePolicy(text, 'policy.yml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected the policy to be refused');
}

describe('loadPolicyFile', () => {
  it('loads the shipped example with every section', () => {
    const policy = loadPolicyFile(path.join(projectRoot, 'examples', 'policy.yml'));
    expect(policy.rules.length).toBeGreaterThan(3);
    expect(policy.rules[0]).toEqual({
      tool: 'run_shell',
      match: { command: 'kubectl get *' },
      action: 'allow',
    });
    expect(policy.approvers.overrides.deploy).toEqual({ users: [], groups: ['S0RELEASE1'] });
    expect(policy.approvers.quorum.deploy).toBe(2);
    expect(policy.expiry.default).toBe(24 * 3_600_000);
    expect(policy.expiry.overrides.deploy).toBe(2 * 3_600_000);
    expect(policy.autoApproveAll).toBe(false);
  });

  it('treats an empty file as the empty policy', () => {
    const policy = parsePolicy('', 'policy.yml');
    expect(policy.rules).toEqual([]);
    expect(policy.approvers.allowSelfApproval).toBe(false);
  });

  it('names the file when it cannot be read', () => {
    const missing = path.join(tempDir().path, 'nope.yml');
    expect(() => loadPolicyFile(missing)).toThrow(
      new RegExp(`HOLDFAST_POLICY points at ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it('reports a bad action with its line and path', () => {
    const problems = problemsOf(
      ['rules:', '  - tool: run_shell', '    match: { command: "ls" }', '    action: maybe', ''].join('\n'),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^policy\.yml:4: rules\.0\.action: /);
  });

  it('names an unknown key and its line', () => {
    const problems = problemsOf(['approvers:', '  default:', '    users: []', '  quorom: {}', ''].join('\n'));
    expect(problems[0]).toMatch(/^policy\.yml:4: approvers: unknown key "quorom"/);
  });

  it('refuses ids that are not Slack ids, on the right line', () => {
    const problems = problemsOf(
      ['approvers:', '  default:', '    users:', '      - U012ABCDEF', '      - alice', ''].join('\n'),
    );
    expect(problems[0]).toMatch(/^policy\.yml:5: approvers\.default\.users\.1: .*Slack user id/);
  });

  it('refuses a duration it cannot read', () => {
    const problems = problemsOf(['expiry:', '  default: tomorrow', ''].join('\n'));
    expect(problems[0]).toMatch(/^policy\.yml:2: expiry\.default: .*duration/);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf(['rules:', '  - action: allow', 'autoApproveAll: "yes"', ''].join('\n'));
    expect(problems.some((problem) => problem.startsWith('policy.yml:2: rules.0.tool:'))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('policy.yml:3: autoApproveAll:'))).toBe(true);
  });

  it('reports broken YAML with its line', () => {
    const file = tempDir().file('policy.yml');
    fs.writeFileSync(
      file,
      ['rules:', '  - tool: run_shell', '    action: allow', '   bad: [', ''].join('\n'),
    );
    expect(() => loadPolicyFile(file)).toThrow(/not valid YAML/);
    try {
      loadPolicyFile(file);
    } catch (error) {
      expect((error as ConfigError).issues[0]).toMatch(
        new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `),
      );
    }
  });

  it('refuses duplicate keys rather than silently keeping one', () => {
    expect(() =>
      parsePolicy(['autoApproveAll: false', 'autoApproveAll: true', ''].join('\n'), 'p.yml'),
    ).toThrow(/p\.yml:2: /);
  });
});
