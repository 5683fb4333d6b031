import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { projectRoot } from '../flows/local/holdfast-process.js';

/** One line of holdfast's own log (pino JSON on stdout). */
export interface ChildLogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly [field: string]: unknown;
}

/**
 * holdfast started as `npm start` starts it, as a separate process a test can SIGKILL at any moment:
 * nothing in it knows it is under test.
 */
export interface HoldfastChild {
  readonly name: string;
  readonly pid: number;
  /** Where signed Slack requests go. */
  readonly eventsUrl: string;
  /** `performance.now()` when it logged that it is running (boot recovery done, sweep started). */
  readonly readyAt: number;
  readonly logs: readonly ChildLogLine[];
  /** Everything it wrote, for a failure message. */
  output(): string;
  /** SIGKILL: no handler runs, nothing is flushed; resolves once the process is gone (and reaped). */
  kill(): Promise<void>;
  /** SIGTERM, as a deploy would; SIGKILL if it has not exited within the grace. */
  stop(): Promise<void>;
  /**
   * `signal` to its whole process group, as a terminal's Ctrl-C or a supervisor does (needs `ownGroup`);
   * resolves with its exit code once it is gone, SIGKILL if it has not exited within the grace.
   */
  signalGroup(signal: 'SIGTERM' | 'SIGINT'): Promise<number | null>;
  /** SIGSTOP: alive but frozen (a long GC pause, a stalled VM); its leases run out. */
  freeze(): void;
  /** SIGCONT: it carries on where it was, unaware of the time it lost. */
  thaw(): void;
  readonly exited: boolean;
}

export interface HoldfastChildOptions {
  readonly name: string;
  readonly port: number;
  readonly env: Record<string, string>;
  readonly startTimeoutMs?: number;
  /** Started as the leader of a process group of its own, so the group can be signalled. */
  readonly ownGroup?: boolean;
}

export async function startHoldfastChild(options: HoldfastChildOptions): Promise<HoldfastChild> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', PORT: String(options.port), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownGroup === true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: holdfast could not be spawned`);
  const logs: ChildLogLine[] = [];
  let output = '';
  let partial = '';
  let readyAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output += text;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as ChildLogLine;
        logs.push(entry);
        if (entry.msg === 'holdfast is running') readyAt ??= performance.now();
      } catch {
        // A line that is not JSON is kept in the output only.
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exit = once(child, 'exit');
  let exited = false;
  void exit.then(() => {
    exited = true;
  });

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  await new Promise<void>((resolve, reject) => {
    const deadline = performance.now() + timeoutMs;
    const poll = setInterval(() => {
      if (readyAt !== undefined) {
        clearInterval(poll);
        resolve();
      } else if (exited || performance.now() > deadline) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`${options.name}: holdfast did not start:\n${output}`));
      }
    }, 20);
  });

  return {
    name: options.name,
    pid,
    eventsUrl: `http://127.0.0.1:${options.port}/slack/events`,
    readyAt: readyAt as number,
    logs,
    output: () => output,
    get exited() {
      return exited;
    },
    async kill() {
      if (exited) return;
      child.kill('SIGKILL');
      await exit;
    },
    freeze() {
      child.kill('SIGSTOP');
    },
    thaw() {
      child.kill('SIGCONT');
    },
    async signalGroup(signal) {
      if (!options.ownGroup) throw new Error(`${options.name}: started without a process group of its own`);
      if (exited) return child.exitCode;
      process.kill(-pid, signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code] = (await exit) as [number | null];
      clearTimeout(killer);
      return code;
    },
    async stop() {
      if (exited) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(killer);
    },
  };
}
