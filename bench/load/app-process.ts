import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export { freePort } from '../../src/local/free-port.js';

/**
 * holdfast as people run it (see `appCommand`) in HTTP mode, watched from outside: RSS
 * and CPU time from /proc, responsiveness from the latency of its `/health` route. Nothing is added to
 * the app for the benchmark.
 */
export interface AppProcess {
  readonly pid: number;
  readonly eventsUrl: string;
  readonly healthUrl: string;
  /** VmRSS and VmHWM (peak) in MB, from /proc/<pid>/status. */
  memory(): { rssMb: number; peakRssMb: number } | undefined;
  /** User + system CPU seconds the process has used, from /proc/<pid>/stat. */
  cpuSeconds(): number | undefined;
  /** Whether it exited, and how. */
  exitCode(): number | string | undefined;
  stop(): Promise<void>;
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const clockTicks = 100; // USER_HZ on Linux

export async function startApp(options: {
  /** What follows `node` (see `appCommand`). */
  readonly args: readonly string[];
  /** The checkout the app runs from. */
  readonly cwd?: string;
  readonly port: number;
  readonly env: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly startTimeoutMs: number;
  readonly cpuProfileDir?: string | undefined;
}): Promise<AppProcess> {
  const { port } = options;
  const log = fs.openSync(options.logFile, 'a');
  // The app gets this environment and nothing of the shell's, apart from what finds node and a home.
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...options.args], {
    cwd: options.cwd ?? repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env, PORT: String(port) },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  let exit: number | string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = code ?? signal ?? 'unknown';
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the app');
  const origin = `http://127.0.0.1:${port}`;
  const app: AppProcess = {
    pid,
    eventsUrl: `${origin}/slack/events`,
    healthUrl: `${origin}/health`,
    memory() {
      const status = readProc(`/proc/${pid}/status`);
      const kb = (field: string) => Number(status?.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1]);
      const rss = kb('VmRSS');
      return Number.isFinite(rss) ? { rssMb: rss / 1024, peakRssMb: kb('VmHWM') / 1024 } : undefined;
    },
    cpuSeconds() {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readProc(`/proc/${pid}/stat`);
      const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (!fields) return undefined;
      return (Number(fields[11]) + Number(fields[12])) / clockTicks;
    },
    exitCode: () => exit,
    async stop() {
      if (exit !== undefined) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };

  const deadline = performance.now() + options.startTimeoutMs;
  while (performance.now() < deadline) {
    if (exit !== undefined) throw new Error(`the app exited (${exit}) before it was ready; see its log`);
    const ready = await fetch(app.healthUrl)
      .then((response) => response.ok)
      .catch(() => false);
    if (ready) return app;
    await sleep(100);
  }
  await app.stop();
  throw new Error(`the app was not ready after ${options.startTimeoutMs} ms; see its log`);
}

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
