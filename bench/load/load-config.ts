import { z } from 'zod';

/** What `npm run bench:load` offers the app, from `BENCH_LOAD_*` variables; every figure is bounded. */
export interface LoadConfig {
  /** Mentions per second, spread round-robin over the threads. */
  readonly rate: number;
  readonly threads: number;
  readonly seconds: number;
  /** Mentions sent at most, whatever rate × seconds comes to. */
  readonly maxMentions: number;
  /** Requests to the app open at once, at most (a stalled app must not exhaust file descriptors). */
  readonly maxInFlight: number;
  /** Share of mentions whose turn calls the tool that asks, and gets clicked. */
  readonly approvalShare: number;
  /** How long the approver takes to click once the card lands. */
  readonly clickDelayMs: number;
  readonly slackLatencyMs: number;
  readonly modelLatencyMs: number;
  /** How long to wait for the backlog after the last mention before calling the rest lost. */
  readonly drainTimeoutSeconds: number;
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

const schema = z.object({
  BENCH_LOAD_RATE: number(200, 1, 2_000),
  BENCH_LOAD_THREADS: number(100, 1, 10_000),
  BENCH_LOAD_SECONDS: number(20, 1, 600),
  BENCH_LOAD_MAX_MENTIONS: number(20_000, 1, 200_000),
  BENCH_LOAD_MAX_IN_FLIGHT: number(2_000, 1, 10_000),
  BENCH_LOAD_APPROVAL_SHARE: number(0.2, 0, 1),
  BENCH_LOAD_CLICK_DELAY_MS: number(0, 0, 60_000),
  BENCH_LOAD_SLACK_LATENCY_MS: number(100, 0, 10_000),
  BENCH_LOAD_MODEL_LATENCY_MS: number(50, 0, 60_000),
  BENCH_LOAD_DRAIN_TIMEOUT_S: number(120, 1, 3_600),
  BENCH_SYNCHRONOUS: z.enum(['OFF', 'NORMAL', 'FULL', 'EXTRA']).optional().default('FULL'),
  BENCH_LOAD_APP: z.enum(['built', 'source']).optional().default('built'),
  BENCH_LOAD_CPU_PROFILE_DIR: z.string().optional(),
});

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
  return {
    rate: e.BENCH_LOAD_RATE,
    threads: Math.trunc(e.BENCH_LOAD_THREADS),
    seconds: e.BENCH_LOAD_SECONDS,
    maxMentions: Math.trunc(e.BENCH_LOAD_MAX_MENTIONS),
    maxInFlight: Math.trunc(e.BENCH_LOAD_MAX_IN_FLIGHT),
    approvalShare: e.BENCH_LOAD_APPROVAL_SHARE,
    clickDelayMs: e.BENCH_LOAD_CLICK_DELAY_MS,
    slackLatencyMs: e.BENCH_LOAD_SLACK_LATENCY_MS,
    modelLatencyMs: e.BENCH_LOAD_MODEL_LATENCY_MS,
    drainTimeoutSeconds: e.BENCH_LOAD_DRAIN_TIMEOUT_S,
    synchronous: e.BENCH_SYNCHRONOUS,
    app: e.BENCH_LOAD_APP,
    cpuProfileDir: e.BENCH_LOAD_CPU_PROFILE_DIR,
    appEnv,
  };
}
