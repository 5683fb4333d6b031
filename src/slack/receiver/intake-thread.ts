import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ConfiguredSecret } from '../../secrets/index.js';
import type { SynchronousMode } from '../../store/open-database.js';
import type { InboundMessage } from '../../store/store.js';
import { maxSlackBodyBytes } from './guarded-http-receiver.js';

/** What the intake thread is started with (structured-cloned: plain data only). */
export interface IntakeThreadData {
  readonly port: number;
  readonly host?: string;
  /** The main thread's receiver, on loopback, that every request the thread does not answer goes on to. */
  readonly forwardPort: number;
  readonly databaseFile: string;
  readonly synchronous: SynchronousMode;
  /** The main connection's WAL sync failure flag (see WalSync): a failed sync stops both. */
  readonly walSyncFailure?: Int32Array;
  readonly busyTimeoutMs: number;
  readonly signingSecret: string;
  readonly botUserId: string;
  readonly teamId?: string;
  readonly secrets: readonly ConfiguredSecret[];
  readonly maxBodyBytes: number;
  /** Whether the main thread's logger takes debug lines: the thread says which events it ignored. */
  readonly logHandled: boolean;
}

/** What the intake thread tells the main thread. */
export type IntakeThreadReport =
  | { readonly type: 'listening'; readonly port: number }
  /** The server could not listen: what Node said, so start-up can name the port (see `listenFailure`). */
  | { readonly type: 'failed'; readonly message: string; readonly code?: string; readonly syscall?: string }
  | { readonly type: 'kept'; readonly message: InboundMessage; readonly kept: boolean }
  | {
      readonly type: 'log';
      readonly level: 'debug' | 'warn' | 'error';
      readonly fields: Record<string, unknown>;
      readonly msg: string;
    }
  | { readonly type: 'pong'; readonly id: number };

/** What the main thread tells the intake thread. */
export type IntakeThreadCommand = { readonly type: 'stop' } | { readonly type: 'ping'; readonly id: number };

export interface IntakeThreadOptions
  extends Omit<IntakeThreadData, 'maxBodyBytes' | 'busyTimeoutMs' | 'logHandled'> {
  readonly logger: Logger;
  /** A message the thread kept: the runtime's inbound queue makes it a turn. */
  readonly onKept: (message: InboundMessage, outcome: { readonly kept: boolean }) => void;
  readonly maxBodyBytes?: number;
}

interface Pongs {
  readonly waiting: Map<number, () => void>;
  gone: boolean;
}

/** Longer than any commit of the main thread's, shorter than Slack's three seconds. */
const busyTimeoutMs = 2_000;
const stopTimeoutMs = 5_000;

/**
 * HTTP mode's front door, on a thread of its own. The main thread runs every turn, and under load its
 * event loop is tens of milliseconds behind: an acknowledgement that waits its turn there waits that
 * long, several times over (the request, the group commit, the fsync's completion). Here a message event
 * (what a busy workspace sends most) is verified, screened and kept on this thread's own connection to
 * the same SQLite file, and Slack is answered once it is on disk, whatever the main thread is doing.
 * The kept message is handed to the main thread's inbound queue, as one kept there would be.
 *
 * Everything else (clicks, commands, views, `/health`, "new" in a DM, which Slack is told of with a
 * reaction) goes on, as received, to Bolt's receiver on a loopback port, which verifies it again and
 * dispatches as before.
 */
export class IntakeThread {
  readonly port: number;
  /** Resolves if the thread ends while holdfast runs: the public port is gone, so holdfast must stop. */
  readonly failed: Promise<Error>;
  readonly #worker: Worker;
  #stopping = false;
  #pings = 0;
  /** Pings awaiting their answer; `gone` once the thread has ended and none will come. */
  readonly #pongs: Pongs;

  private constructor(worker: Worker, port: number, failed: Promise<Error>, pongs: Pongs) {
    this.#worker = worker;
    this.#pongs = pongs;
    this.port = port;
    this.failed = failed;
  }

  static start(options: IntakeThreadOptions): Promise<IntakeThread> {
    const { logger, onKept, ...rest } = options;
    const data: IntakeThreadData = {
      ...rest,
      maxBodyBytes: options.maxBodyBytes ?? maxSlackBodyBytes,
      busyTimeoutMs,
      logHandled: logger.isLevelEnabled('debug'),
    };
    const worker = startWorker(data);
    const pongs: Pongs = { waiting: new Map(), gone: false };
    let thread: IntakeThread | undefined;
    let fail: (error: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => {
      fail = resolve;
    });
    return new Promise((resolve, reject) => {
      const ended = (error: Error) => {
        pongs.gone = true;
        for (const answered of pongs.waiting.values()) answered();
        pongs.waiting.clear();
        if (thread) {
          if (!thread.#stopping) fail(error);
          return;
        }
        reject(error);
        // A thread that never listened would otherwise hold the process open.
        void worker.terminate();
      };
      worker.on('message', (report: IntakeThreadReport) => {
        switch (report.type) {
          case 'listening':
            thread = new IntakeThread(worker, report.port, failed, pongs);
            resolve(thread);
            return;
          case 'failed':
            ended(Object.assign(new Error(report.message), { code: report.code, syscall: report.syscall }));
            return;
          case 'kept':
            onKept(report.message, { kept: report.kept });
            return;
          case 'log':
            logger[report.level](report.fields, report.msg);
            return;
          case 'pong':
            pongs.waiting.get(report.id)?.();
            pongs.waiting.delete(report.id);
            return;
        }
      });
      worker.once('error', (error) => ended(error));
      worker.once('exit', (code) => ended(new Error(`the intake thread ended (exit code ${code})`)));
    });
  }

  /**
   * Resolves once every message the thread kept before the call has reached `onKept`: a port delivers in
   * order, so the answer to a ping comes after them.
   */
  delivered(): Promise<void> {
    if (this.#stopping || this.#pongs.gone) return Promise.resolve();
    const id = ++this.#pings;
    return new Promise((resolve) => {
      this.#pongs.waiting.set(id, resolve);
      this.#command({ type: 'ping', id });
    });
  }

  /** Takes no more requests, finishes those under way, and closes the thread's connection. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#command({ type: 'stop' });
    for (const resolve of this.#pongs.waiting.values()) resolve();
    this.#pongs.waiting.clear();
    const timer = setTimeout(() => void this.#worker.terminate(), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  #command(command: IntakeThreadCommand): void {
    this.#worker.postMessage(command);
  }
}

/**
 * From the build, the thread runs the compiled module; from source (`npm start`, the tests), the same
 * module through tsx, which a worker must register itself.
 */
function startWorker(data: IntakeThreadData): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./intake-thread-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData: data });
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsxApi = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  return new Worker(
    `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true, workerData: data },
  );
}
