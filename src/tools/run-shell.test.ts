import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { toolContext } from '../../test/support/tool-context.js';
import { outputText } from '../agent/tool-outcome.js';
import { createDeployTool } from './deploy.js';
import { ProcessGroups } from './process-groups.js';
import { createRunShellTool } from './run-shell.js';

const env = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/ops',
  SLACK_BOT_TOKEN: 'xoxb-should-never-leak',
  OPENAI_API_KEY: 'sk-should-never-leak',
  HOLDFAST_SIGNING_SECRET: 'nope',
  DATABASE_PASSWORD: 'hunter2',
};

function shell(options: { timeoutMs?: number; outputLimit?: number; groups?: ProcessGroups } = {}) {
  const workdir = tempDir().path;
  return {
    workdir,
    tool: createRunShellTool({
      workdir,
      env,
      timeoutMs: options.timeoutMs ?? 10_000,
      outputLimit: options.outputLimit,
      groups: options.groups,
    }),
  };
}

function parsed<Args>(
  tool: { parse(input: unknown): { success: true; data: Args } | { success: false; error: string } },
  input: unknown,
): Args {
  const result = tool.parse(input);
  if (!result.success) throw new Error(result.error);
  return result.data;
}

/** Alive and not a zombie waiting for a reaper (orphans in containers may never be reaped). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('run_shell', () => {
  it('always asks, with the exact command as the summary', async () => {
    const { tool } = shell();
    expect(await tool.permission(parsed(tool, { command: 'ls -la' }), toolContext())).toEqual({
      type: 'ask',
      permissionType: 'shell',
      summary: 'run `ls -la`',
    });
  });

  it('runs in the workdir and reports output and exit code, a non-zero exit as a failed run', async () => {
    const { tool, workdir } = shell();
    fs.writeFileSync(path.join(workdir, 'marker.txt'), 'here');
    const output = await tool.execute(parsed(tool, { command: 'pwd; ls; exit 3' }), toolContext());
    expect(output).toMatchObject({ type: 'failed', exitCode: 3 });
    const result = outputText(output);
    expect(result).toContain(fs.realpathSync(workdir));
    expect(result).toContain('marker.txt');
    expect(result).toMatch(/\[exit code 3\]$/);
  });

  it('reports exit 0 as a plain result', async () => {
    const { tool } = shell();
    expect(await tool.execute(parsed(tool, { command: 'echo fine' }), toolContext())).toBe(
      'fine\n[exit code 0]',
    );
  });

  it('passes on no token, key, secret or password', async () => {
    const { tool } = shell();
    const result = await tool.execute(parsed(tool, { command: 'env' }), toolContext());
    expect(result).toContain('HOME=/home/ops');
    for (const leaked of [
      'xoxb-should-never-leak',
      'sk-should-never-leak',
      'SLACK_',
      'OPENAI_',
      'HOLDFAST_',
      'hunter2',
    ]) {
      expect(result).not.toContain(leaked);
    }
  });

  it('kills the whole process group on timeout', async () => {
    const { tool, workdir } = shell({ timeoutMs: 500 });
    const pidFile = path.join(workdir, 'grandchild.pid');
    const output = await tool.execute(
      parsed(tool, { command: `sleep 30 & echo $! > ${pidFile}; sleep 30` }),
      toolContext(),
    );
    expect(output).toMatchObject({ type: 'failed', error: 'timed out after 1 s' });
    expect(outputText(output)).toContain('[timed out after 1s; the process group was killed]');
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isRunning(grandchild)).toBe(false);
  });

  it('does not start a command for a turn that is already stopping', async () => {
    const { tool, workdir } = shell();
    const stopping = new AbortController();
    stopping.abort();
    const result = await tool.execute(
      parsed(tool, { command: 'touch started' }),
      toolContext({ signal: stopping.signal }),
    );
    expect(outputText(result)).toContain('[stopped before it finished');
    expect(result).toMatchObject({ type: 'failed', error: 'stopped' });
    expect(fs.existsSync(path.join(workdir, 'started'))).toBe(false);
  });

  it('is ended with every group still running when holdfast stops, and starts nothing after', async () => {
    const groups = new ProcessGroups();
    const { tool, workdir } = shell({ groups });
    const pidFile = path.join(workdir, 'shell.pid');
    // Ignores SIGTERM, and its turn is never aborted: only the end of all groups stops it.
    const running = tool.execute(
      parsed(tool, { command: `trap "" TERM; echo $$ > ${pidFile}; sleep 30` }),
      toolContext(),
    );
    await vi.waitFor(() => expect(fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8')).toMatch(/\d/));
    expect(groups.size).toBe(1);

    expect(await groups.endAll(100)).toBe(1);

    const ended = await running;
    expect(outputText(ended)).toContain('[killed by SIGKILL]');
    expect(ended).toMatchObject({ type: 'failed' });
    expect(isRunning(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
    expect(groups.size).toBe(0);
    await tool.execute(parsed(tool, { command: 'touch started' }), toolContext());
    expect(fs.existsSync(path.join(workdir, 'started'))).toBe(false);
  });

  it('caps the output and says how much was dropped', async () => {
    const { tool } = shell({ outputLimit: 100 });
    const result = await tool.execute(parsed(tool, { command: 'yes x | head -c 5000' }), toolContext());
    expect(result).toContain('[output truncated: 4900 more bytes]');
  });

  it('confines cwd to the workdir', async () => {
    const { tool } = shell();
    await expect(tool.execute(parsed(tool, { command: 'ls', cwd: '../..' }), toolContext())).rejects.toThrow(
      /outside the working directory/,
    );
  });

  it('refuses an empty command at parse time', () => {
    const { tool } = shell();
    expect(tool.parse({ command: '' }).success).toBe(false);
    expect(tool.parse({}).success).toBe(false);
  });
});

describe('deploy', () => {
  function deployTool() {
    const workdir = tempDir().path;
    return createDeployTool({
      workdir,
      env,
      services: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell default, expanded by sh
        api: { command: 'echo deploying $HOLDFAST_DEPLOY_SERVICE at ${HOLDFAST_DEPLOY_REF:-main}' },
      },
    });
  }

  it('asks with permission type deploy', async () => {
    const tool = deployTool();
    expect(await tool.permission(parsed(tool, { service: 'api', ref: 'v1.2.3' }), toolContext())).toEqual({
      type: 'ask',
      permissionType: 'deploy',
      summary: 'deploy api at v1.2.3',
    });
  });

  it('runs only the configured command, with the ref in its environment', async () => {
    const tool = deployTool();
    expect(await tool.execute(parsed(tool, { service: 'api', ref: 'v1.2.3' }), toolContext())).toBe(
      'deploying api at v1.2.3\n[exit code 0]',
    );
  });

  it('refuses unknown services and refs that could inject', () => {
    const tool = deployTool();
    expect(tool.parse({ service: 'billing' }).success).toBe(false);
    expect(tool.parse({ service: 'api', ref: 'main; rm -rf /' }).success).toBe(false);
  });
});

describe('run_shell effects, for the approval card', () => {
  it('names the directory and host the command runs on and what it may change', () => {
    const tool = createRunShellTool({ workdir: '/srv/ops', env, timeoutMs: 1_000, host: 'ops-1' });

    expect(tool.effects?.({ command: 'df -h', cwd: 'logs' })).toEqual({
      workdir: '/srv/ops/logs',
      host: 'ops-1',
      changes:
        'anything holdfast’s user may change on this host: files, processes, and what the network reaches',
    });
    expect(tool.effects?.({ command: 'df -h' })?.workdir).toBe('/srv/ops');
  });
});
