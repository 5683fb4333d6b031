import { describe, expect, it } from 'vitest';
import { taskDetails, taskTitle } from './live-turn-content.js';

describe('taskTitle', () => {
  it('names the tool and what it runs', () => {
    expect(taskTitle({ name: 'run_shell', arguments: '{"command":"df -h"}' })).toBe('run_shell: df -h');
    expect(
      taskTitle({ name: 'http_request', arguments: '{"method":"GET","url":"https://example.com/"}' }),
    ).toBe('http_request: GET https://example.com/');
    expect(taskTitle({ name: 'deploy', arguments: '{"service":"api","ref":"v1.2"}' })).toBe(
      'deploy: api @ v1.2',
    );
  });

  it('is the tool alone while its arguments are unknown or say nothing', () => {
    expect(taskTitle({ name: 'run_shell' })).toBe('run_shell');
    expect(taskTitle({ name: 'disk_usage', arguments: '{}' })).toBe('disk_usage');
    expect(taskTitle({ name: 'run_shell', arguments: '{"command":' })).toBe('run_shell');
  });

  it('keeps to one short line', () => {
    const title = taskTitle({
      name: 'run_shell',
      arguments: JSON.stringify({ command: `echo a\n${'x'.repeat(200)}` }),
    });
    expect(title).toHaveLength(60);
    expect(title).toMatch(/^run_shell: echo a x+…$/);
  });
});

describe('taskDetails', () => {
  it('says how a call that did not succeed ended, then how long it took', () => {
    expect(taskDetails({ type: 'failed', exitCode: 2 }, 'took 3 s')).toBe('failed: exit code 2, took 3 s');
    expect(taskDetails({ type: 'failed', error: 'could not reach db' }, undefined)).toBe(
      'failed: could not reach db',
    );
    expect(taskDetails({ type: 'stopped', by: 'U0ALICE' }, undefined)).toBe('stopped');
    expect(taskDetails({ type: 'interrupted' }, undefined)).toBe('interrupted: outcome unknown');
    expect(taskDetails({ type: 'succeeded' }, 'took 3 s')).toBe('took 3 s');
    expect(taskDetails({ type: 'succeeded' }, undefined)).toBeUndefined();
  });
});
