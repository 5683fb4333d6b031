import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { onTestFinished } from 'vitest';
import { projectRoot } from '../local/holdfast-process.js';

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** What to run in the project root; `node --import tsx src/main.ts`, the way `npm start` runs it. */
  readonly command?: readonly string[];
  readonly env: Record<string, string>;
  /**
   * Runs the child as an ordinary user (nobody) when the tests run as root, who may write anywhere: a
   * folder that is not writable is then not writable for holdfast either, as on a real host.
   */
  readonly asOrdinaryUser?: boolean;
  readonly timeoutMs?: number;
}

export const startCommand = [process.execPath, '--import', 'tsx', 'src/main.ts'] as const;

/** Runs holdfast to the end (a start-up that fails, or `doctor`) and returns what it printed. */
export async function runToEnd(options: RunOptions): Promise<Finished> {
  const child = spawnHoldfast(options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (signal === 'SIGKILL')
    throw new Error(`holdfast did not finish within ${timeoutMs} ms:\n${stdout}${stderr}`);
  return { code, signal, stdout, stderr };
}

export function spawnHoldfast(options: RunOptions): ChildProcess {
  const [file, ...args] = options.command ?? startCommand;
  const ordinary = options.asOrdinaryUser && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  return spawn(file!, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...ordinary,
  });
}

/** A port something else already listens on, held until the test finishes. */
export async function takenPort(host?: string): Promise<number> {
  const server: Server = createServer();
  server.listen({ port: 0, host });
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** Lets an ordinary user into a test's temporary folder (mkdtemp makes it private). */
export function openToOthers(dir: string): void {
  chmodSync(dir, 0o755);
}

/** A stack trace line, which an operator should never need to read. */
export const stackLine = /^\s+at /m;
