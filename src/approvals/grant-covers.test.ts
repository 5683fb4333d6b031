import { describe, expect, it } from 'vitest';
import { grantCovers, grantPatternProblem, proposeGrantPattern } from './grant-covers.js';

const call = (command: string, argsHash = `h:${command}`) => ({
  toolName: 'ops_shell',
  args: { command },
  argsHash,
});

describe('grantCovers', () => {
  const pattern = { toolName: 'ops_shell', match: { command: 'kubectl get *' }, argsHash: null };

  it.each([
    ['kubectl get pods', true],
    ['kubectl get pods -n web', true],
    ['kubectl delete pods', false],
    ['kubectl get pods; rm -rf /', false],
    ['kubectl get $(whoami)', false],
  ])('a `kubectl get *` grant covering %j: %s', (command, covered) => {
    expect(grantCovers(pattern, call(command))).toBe(covered);
  });

  it('covers only the very call of an exact grant', () => {
    const exact = { toolName: 'ops_shell', match: null, argsHash: 'h:uptime' };
    expect(grantCovers(exact, call('uptime'))).toBe(true);
    expect(grantCovers(exact, call('uptime', 'h:other'))).toBe(false);
  });

  it('covers every call of the tool for a whole-tool grant, and no other tool', () => {
    const whole = { toolName: 'ops_shell', match: null, argsHash: null };
    expect(grantCovers(whole, call('anything at all'))).toBe(true);
    expect(grantCovers(whole, { ...call('x'), toolName: 'deploy' })).toBe(false);
  });

  it('does not cover a call without the named argument', () => {
    expect(grantCovers(pattern, { toolName: 'ops_shell', args: {}, argsHash: 'h' })).toBe(false);
  });
});

describe('proposeGrantPattern', () => {
  it.each([
    [{ command: 'kubectl get pods -n web' }, { argument: 'command', pattern: 'kubectl get *' }],
    [{ command: 'uptime' }, { argument: 'command', pattern: 'uptime' }],
    [
      { replicas: 3, service: 'deploy api now' },
      { argument: 'service', pattern: 'deploy api *' },
    ],
    [{ replicas: 3 }, undefined],
  ])('offers %j as %j', (args, proposed) => {
    expect(proposeGrantPattern(args)).toEqual(proposed);
  });
});

describe('grantPatternProblem', () => {
  const subject = call('kubectl get pods');
  it('accepts a pattern that covers the call', () => {
    expect(grantPatternProblem('kubectl get *', subject, 'command')).toBeUndefined();
  });
  it.each(['', '*', ' * ? ', 'kubectl delete *'])('refuses %j', (pattern) => {
    expect(grantPatternProblem(pattern, subject, 'command')).toBeTypeOf('string');
  });
});
