import { spawn } from 'node:child_process';
import { failedRun, type ToolOutput } from '../agent/tool-outcome.js';
import { killGraceMs, type ProcessGroups, signalGroup } from './process-groups.js';

export interface ProcessRequest {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes of stdout+stderr kept; the rest is counted and dropped. */
  readonly outputLimit: number;
  readonly signal?: AbortSignal;
  /** Where the command's group is kept while it runs, so holdfast ends it before it exits. */
  readonly groups?: ProcessGroups;
}

export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly output: string;
  readonly truncatedBytes: number;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

const notStarted: ProcessOutcome = {
  exitCode: null,
  signal: null,
  output: '',
  truncatedBytes: 0,
  timedOut: false,
  aborted: true,
};

/**
 * Runs a shell command in its own process group, so a timeout or an abort kills everything it started
 * (`sleep 600 &` included), not just the shell. A command asked for once its turn is stopping, or once
 * holdfast is, is not started at all: an abort listener added then would never hear the abort.
 */
export function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
  if (request.signal?.aborted || request.groups?.accepting === false) return Promise.resolve(notStarted);
  let closed: () => void = () => undefined;
  const outcome = new Promise<ProcessOutcome>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', request.command], {
      cwd: request.cwd,
      env: { ...request.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncatedBytes = 0;
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;

    const collect = (chunk: Buffer) => {
      const room = request.outputLimit - kept;
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
      }
      truncatedBytes += Math.max(0, chunk.length - Math.max(room, 0));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    if (child.pid !== undefined) {
      request.groups?.track(
        child.pid,
        new Promise<void>((done) => {
          closed = done;
        }),
      );
    }
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid !== undefined) signalGroup(child.pid, signal);
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), killGraceMs);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, request.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });

    child.once('error', (error) => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      closed();
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      // Whatever the shell left running in its group goes with it.
      killGroup('SIGKILL');
      if (killTimer) clearTimeout(killTimer);
      closed();
      resolve({
        exitCode,
        signal,
        output: Buffer.concat(chunks).toString('utf8'),
        truncatedBytes,
        timedOut,
        aborted,
      });
    });
  });
  return outcome;
}

/** The text the model sees: output, then a status line it can rely on. */
function describeProcess(outcome: ProcessOutcome, timeoutMs: number): string {
  const lines = [outcome.output.trimEnd() || '(no output)'];
  if (outcome.truncatedBytes > 0) lines.push(`[output truncated: ${outcome.truncatedBytes} more bytes]`);
  if (outcome.timedOut)
    lines.push(`[timed out after ${Math.round(timeoutMs / 1000)}s; the process group was killed]`);
  else if (outcome.aborted) lines.push('[stopped before it finished; the process group was killed]');
  else if (outcome.exitCode !== null) lines.push(`[exit code ${outcome.exitCode}]`);
  else lines.push(`[killed by ${outcome.signal}]`);
  return lines.join('\n');
}

/** The process's text for the model; anything but a clean exit 0 is a failed run. */
export function processOutput(outcome: ProcessOutcome, timeoutMs: number): ToolOutput {
  const text = describeProcess(outcome, timeoutMs);
  if (outcome.timedOut)
    return failedRun(text, { error: `timed out after ${Math.round(timeoutMs / 1000)} s` });
  if (outcome.aborted) return failedRun(text, { error: 'stopped' });
  if (outcome.exitCode === 0) return text;
  if (outcome.exitCode !== null) return failedRun(text, { exitCode: outcome.exitCode });
  return failedRun(text, { error: `killed by ${outcome.signal}` });
}
