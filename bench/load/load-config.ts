import { z } from 'zod';

/** A range figures are drawn from, uniformly (a fixed figure has `min === max`). */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/** What `npm run bench:load` offers the app, from `BENCH_LOAD_*` variables; every figure is bounded. */
export interface LoadConfig {
  /**
   * `busy` (the default): a busy workspace, one thread per mention over `channels` channels, a steady
   * minute-by-minute stream and then a burst (see load-workload.ts); `flat`: `rate` mentions a second
   * round-robin over `threads` threads of one channel for `seconds`.
   */
  readonly workload: 'busy' | 'flat';
  /** Shrinks the busy workload's phases and their counts alike (0.2: a fifth of each), for development. */
  readonly scale: number;
  readonly channels: number;
  /** Mentions per second, spread round-robin over the threads (flat). */
  readonly rate: number;
  readonly threads: number;
  readonly seconds: number;
  /** Mentions sent at most, whatever the workload comes to. */
  readonly maxMentions: number;
  /** Requests to the app open at once, at most (a stalled app must not exhaust file descriptors). */
  readonly maxInFlight: number;
  /** Share of mentions whose turn calls the tool that asks, and gets clicked. */
  readonly approvalShare: number;
  /** How long the approver takes to click once the card lands. */
  readonly clickDelayMs: Range;
  readonly slackLatencyMs: number;
  readonly modelLatencyMs: Range;
  /** Draws of the random figures (model latency, click delay): the same seed, the same run. */
  readonly seed: number;
  /** Whether the fake Slack enforces Slack's published per-method rate limits (429 with Retry-After). */
  readonly slackLimits: boolean;
  /**
   * Run the workload twice and print both side by side: limits on and then off, or, with `baseline`,
   * the app in that folder and then this one, both with the limits as `slackLimits` says.
   */
  readonly compare: boolean;
  /** Another checkout of holdfast (its own `node_modules` in reach) to compare this one against. */
  readonly baseline: string | undefined;
  /** How long to wait for the backlog after the last mention before calling the rest lost. */
  readonly drainTimeoutSeconds: number;
  /** After the last answer, how long the final reactions, streams and card rewrites may take to settle. */
  readonly settleSeconds: number;
  readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  /** `built` (the default): compiled and run as production runs it; `source`: under tsx, as `npm start`. */
  readonly app: 'built' | 'source';
  /** Where the app writes a V8 CPU profile of the run (`--cpu-prof`), when set. */
  readonly cpuProfileDir: string | undefined;
  /**
   * The app's own settings: the benchmark's defaults below, then any `HOLDFAST_*` variable set when it
   * runs (e.g. `HOLDFAST_MAX_CONCURRENT_TURNS=32 npm run bench:load`), except the ones it must own.
   */
  readonly appEnv: Readonly<Record<string, string>>;
}

const number = (fallback: number, min: number, max: number) =>
  z.coerce.number().min(min).max(max).optional().default(fallback);
const unset = (min: number, max: number) => z.coerce.number().min(min).max(max).optional();

const schema = z.object({
  BENCH_LOAD_WORKLOAD: z.enum(['busy', 'flat']).optional().default('busy'),
  BENCH_LOAD_SCALE: number(1, 0.01, 1),
  BENCH_LOAD_CHANNELS: number(10, 1, 1_000),
  BENCH_LOAD_RATE: number(200, 1, 2_000),
  BENCH_LOAD_THREADS: number(100, 1, 10_000),
  BENCH_LOAD_SECONDS: number(20, 1, 600),
  BENCH_LOAD_MAX_MENTIONS: number(20_000, 1, 200_000),
  BENCH_LOAD_MAX_IN_FLIGHT: number(2_000, 1, 10_000),
  // Unset, these take the workload's own defaults (see `workloadDefaults`).
  BENCH_LOAD_APPROVAL_SHARE: unset(0, 1),
  BENCH_LOAD_CLICK_DELAY_MS: unset(0, 60_000),
  BENCH_LOAD_MODEL_LATENCY_MS: unset(0, 60_000),
  BENCH_LOAD_DRAIN_TIMEOUT_S: unset(1, 3_600),
  BENCH_LOAD_SLACK_LATENCY_MS: number(100, 0, 10_000),
  BENCH_LOAD_SEED: number(1, 0, 2 ** 31),
  BENCH_LOAD_SLACK_LIMITS: z.enum(['on', 'off']).optional().default('on'),
  BENCH_LOAD_COMPARE: z.enum(['0', '1']).optional().default('0'),
  BENCH_LOAD_BASELINE: z.string().min(1).optional(),
  BENCH_LOAD_SETTLE_S: number(30, 0, 600),
  BENCH_SYNCHRONOUS: z.enum(['OFF', 'NORMAL', 'FULL', 'EXTRA']).optional().default('FULL'),
  BENCH_LOAD_APP: z.enum(['built', 'source']).optional().default('built'),
  BENCH_LOAD_CPU_PROFILE_DIR: z.string().optional(),
});

/**
 * The busy workspace of issue 29: replies of one to two seconds, 30% needing an approval clicked 3–10 s
 * after the card lands. The flat workload keeps its old figures: everything fast, the click at once.
 */
const workloadDefaults = {
  busy: {
    approvalShare: 0.3,
    clickDelayMs: { min: 3_000, max: 10_000 },
    modelLatencyMs: { min: 1_000, max: 2_000 },
    drain: 180,
  },
  flat: {
    approvalShare: 0.2,
    clickDelayMs: { min: 0, max: 0 },
    modelLatencyMs: { min: 50, max: 50 },
    drain: 120,
  },
} as const;

/**
 * The app's per-thread and per-person limits would refuse most of a backlog this size; the benchmark
 * measures how fast the app works through it, so it lifts them (refusals are still counted).
 */
const appDefaults = {
  HOLDFAST_MAX_TURNS_PER_THREAD: '1000',
  HOLDFAST_MAX_TURNS_PER_USER: '10000',
};

/** Set by the benchmark itself (its own files, tool and approver), whatever the shell says. */
const ownedByBenchmark = new Set([
  'HOLDFAST_DB',
  'HOLDFAST_DB_SYNCHRONOUS',
  'HOLDFAST_WORKDIR',
  'HOLDFAST_APPROVERS',
  'HOLDFAST_PLUGINS',
]);

const fixedRange = (value: number | undefined, fallback: Range): Range =>
  value === undefined ? fallback : { min: value, max: value };

export function loadConfig(env: Readonly<Record<string, string | undefined>>): LoadConfig {
  const e = schema.parse(
    Object.fromEntries(
      Object.entries(env).filter(([name, value]) => name.startsWith('BENCH_') && value !== ''),
    ),
  );
  const appEnv: Record<string, string> = { ...appDefaults };
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('HOLDFAST_') && !ownedByBenchmark.has(name) && value !== undefined)
      appEnv[name] = value;
  }
  const defaults = workloadDefaults[e.BENCH_LOAD_WORKLOAD];
  return {
    workload: e.BENCH_LOAD_WORKLOAD,
    scale: e.BENCH_LOAD_SCALE,
    channels: Math.trunc(e.BENCH_LOAD_CHANNELS),
    rate: e.BENCH_LOAD_RATE,
    threads: Math.trunc(e.BENCH_LOAD_THREADS),
    seconds: e.BENCH_LOAD_SECONDS,
    maxMentions: Math.trunc(e.BENCH_LOAD_MAX_MENTIONS),
    maxInFlight: Math.trunc(e.BENCH_LOAD_MAX_IN_FLIGHT),
    approvalShare: e.BENCH_LOAD_APPROVAL_SHARE ?? defaults.approvalShare,
    clickDelayMs: fixedRange(e.BENCH_LOAD_CLICK_DELAY_MS, defaults.clickDelayMs),
    slackLatencyMs: e.BENCH_LOAD_SLACK_LATENCY_MS,
    modelLatencyMs: fixedRange(e.BENCH_LOAD_MODEL_LATENCY_MS, defaults.modelLatencyMs),
    seed: Math.trunc(e.BENCH_LOAD_SEED),
    slackLimits: e.BENCH_LOAD_SLACK_LIMITS === 'on',
    compare: e.BENCH_LOAD_COMPARE === '1',
    baseline: e.BENCH_LOAD_BASELINE,
    drainTimeoutSeconds: e.BENCH_LOAD_DRAIN_TIMEOUT_S ?? defaults.drain,
    settleSeconds: e.BENCH_LOAD_SETTLE_S,
    synchronous: e.BENCH_SYNCHRONOUS,
    app: e.BENCH_LOAD_APP,
    cpuProfileDir: e.BENCH_LOAD_CPU_PROFILE_DIR,
    appEnv,
  };
}
