import type { LoadConfig } from './load-config.js';

/** One mention the benchmark sends: when (ms after the start), where, and what it asks for. */
export interface PlannedMention {
  readonly n: number;
  readonly atMs: number;
  readonly channel: string;
  /** The mention's name in its text (`t<thread>-<seq>`, see load-script.ts). */
  readonly thread: number;
  readonly seq: number;
  readonly ts: string;
  /** The thread it is posted in; undefined for a mention that starts its own thread. */
  readonly threadTs: string | undefined;
  readonly approval: boolean;
}

export interface Workload {
  readonly label: string;
  readonly mentions: readonly PlannedMention[];
  /** Phases by when they start (ms after the start); `drain` follows the last mention sent. */
  readonly phases: ReadonlyArray<{ readonly name: string; readonly fromMs: number }>;
  /** Every mention has a thread of its own: whatever the bot shows in it belongs to that mention. */
  readonly threadPerMention: boolean;
  /** Channels used, each with its own `chat.postMessage` limit. */
  readonly channels: number;
}

export const mentionTs = (n: number) => `1767300000.${String(n).padStart(6, '0')}`;

/** Spread evenly: mention n asks for approval when the running share steps up at n. */
const asksApproval = (share: number, n: number) => Math.floor((n + 1) * share) > Math.floor(n * share);

/**
 * The busy workspace of issue 29: 60 mentions a minute for three minutes, then 60 in ten seconds, each
 * starting a thread of its own in one of the channels in turn. `scale` shrinks both phases, durations and
 * counts alike, so the rates stay those of the full run.
 */
function busy(config: LoadConfig): Workload {
  const steady = Math.max(1, Math.round(180 * config.scale));
  const burst = Math.max(1, Math.round(60 * config.scale));
  const burstMs = 10_000 * config.scale;
  const steadyEndMs = steady * 1_000;
  const total = Math.min(config.maxMentions, steady + burst);
  const channelName = (n: number) => `C0LOAD${String(n % config.channels).padStart(3, '0')}`;
  const mentions = Array.from(
    { length: total },
    (_, n): PlannedMention => ({
      n,
      atMs: n < steady ? n * 1_000 : steadyEndMs + ((n - steady) * burstMs) / burst,
      channel: channelName(n),
      thread: n,
      seq: 0,
      ts: mentionTs(n),
      threadTs: undefined,
      approval: asksApproval(config.approvalShare, n),
    }),
  );
  return {
    label: `busy workspace: ${steady} mentions at 60/min, then ${burst} in ${burstMs / 1000} s, one thread each over ${config.channels} channels`,
    mentions,
    phases: [
      { name: 'steady', fromMs: 0 },
      { name: 'burst', fromMs: steadyEndMs },
    ],
    threadPerMention: true,
    channels: config.channels,
  };
}

/** The old flat load: `rate` mentions a second round-robin over `threads` threads in one channel. */
function flat(config: LoadConfig): Workload {
  const total = Math.min(config.maxMentions, Math.round(config.rate * config.seconds));
  const mentions = Array.from({ length: total }, (_, n): PlannedMention => {
    const thread = n % config.threads;
    return {
      n,
      atMs: (n / config.rate) * 1000,
      channel: 'C0LOAD',
      thread,
      seq: Math.floor(n / config.threads),
      ts: mentionTs(n),
      threadTs: n < config.threads ? undefined : mentionTs(thread),
      approval: asksApproval(config.approvalShare, n),
    };
  });
  return {
    label: `flat: ${config.rate} mentions/s over ${config.threads} threads for ${config.seconds} s`,
    mentions,
    phases: [{ name: 'steady', fromMs: 0 }],
    threadPerMention: false,
    channels: 1,
  };
}

export function planWorkload(config: LoadConfig): Workload {
  return config.workload === 'busy' ? busy(config) : flat(config);
}
