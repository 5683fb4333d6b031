import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { freePort } from '../../../src/local/free-port.js';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** holdfast started the way `npm start` does, in local mode: no Slack token, no OpenAI key. */
export interface HoldfastProcess {
  /** The URL it printed, token included. */
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

export async function startHoldfastProcess(options: {
  port: number;
  dir: string;
  timeoutMs?: number;
  /** More settings, as a deployment would give them (a policy file, say). */
  env?: Record<string, string>;
}): Promise<HoldfastProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? options.dir,
      PORT: String(options.port),
      HOLDFAST_DB: path.join(options.dir, 'holdfast.db'),
      HOLDFAST_WORKDIR: path.join(options.dir, 'work'),
      HOLDFAST_LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`holdfast printed no URL within ${options.timeoutMs ?? 30_000} ms:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const poll = setInterval(() => {
      const match = /holdfast local workspace: (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]);
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`holdfast exited with ${child.exitCode}:\n${output}`));
      }
    }, 50);
  });

  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
