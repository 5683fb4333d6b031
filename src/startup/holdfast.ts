import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ChatModel } from '../agent/chat-model.js';
import type { Tool } from '../agent/tool.js';
import type { Runtime } from '../runtime/create-runtime.js';
import type { ProcessIdentity } from '../runtime/process-identity.js';
import type { MethodLimit } from '../slack/rate-limits/index.js';
import type { LiveAnswersDeps } from '../slack/turn-view/live-answers.js';

/** What tests and the benchmark replace when they start holdfast (`startHoldfast` in src/startup/start-holdfast.ts). */
export interface HoldfastOverrides {
  readonly logger?: Logger;
  readonly now?: () => number;
  /**
   * The monotonic clock Slack's `Retry-After` pauses are counted by (tests move it with `now` to see a
   * long pause end); real time unless given.
   */
  readonly slackClock?: () => number;
  /** The Slack rate limits calls are planned by (Slack's published ones unless given; tests speed them up). */
  readonly slackLimits?: Readonly<Record<string, MethodLimit>>;
  /** Replaces the configured model (tests, the benchmark). */
  readonly model?: ChatModel;
  /** Extra tools, appended to the built-in and plugin tools. */
  readonly tools?: readonly Tool[];
  /** For the local workspace in tests: its own port and database file. */
  readonly localWorkspace?: { port?: number; databasePath?: string };
  /** Who this process is in leases (tests run two "processes" in one). */
  readonly identity?: ProcessIdentity;
  readonly leaseMs?: number;
  /** Outbox timing (tests shorten the retry backoff). */
  readonly delivery?: { backoffMs?: (attempt: number) => number; claimMs?: number };
  /** How long a turn runs before its message shows it is working (tests make it 0 or short). */
  readonly workingAfterMs?: number;
  /** How long a completed turn's tick waits for its answer to reach the thread (tests make it 0). */
  readonly answerWaitMs?: number;
  /** How often a working turn's status line is sent again (tests make it short). */
  readonly statusRefreshMs?: number;
  /** Where the app's metrics are registered (a new registry when not given). */
  readonly metricsRegistry?: Registry;
  /**
   * When and how often a running turn's answer is shown as it is written (see `createLiveAnswers`);
   * `showAfterMs: Infinity` shows answers only once complete.
   */
  readonly live?: Pick<LiveAnswersDeps, 'showAfterMs' | 'streamIntervalMs' | 'updateIntervalMs' | 'busy'>;
}

/** A running holdfast, as `startHoldfast` returns it. */
export interface Holdfast {
  readonly runtime: Runtime;
  /** The process's logger, secrets redacted. */
  readonly logger: Logger;
  /** Where Slack (or the local workspace) sends HTTP requests; undefined in Socket Mode. */
  readonly eventsUrl?: string;
  /** Local mode: the browser page, with the token that signs a browser in. */
  readonly localUrl?: string;
  /**
   * Settles only if the page check that runs after start-up on a large database finds damage: the
   * process should then stop, as start-up would have on a small one.
   */
  readonly damaged: Promise<Error>;
  /** The health, readiness and metrics listener, when one runs (Socket Mode, HOLDFAST_HEALTH_PORT). */
  readonly opsUrl?: string;
  /** This app's Prometheus metrics. */
  readonly metrics: Registry;
  stop(): Promise<void>;
}
