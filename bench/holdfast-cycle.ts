/**
 * holdfast's approval cycle as the benchmarks drive it: the real `Runtime` on a file database, a
 * zero-latency model, a no-op tool that asks, and an outbox that delivers to a Slack stand-in at once.
 * It reaches holdfast only through `Runtime` and the store's public interface, so it keeps measuring
 * whatever the core becomes.
 */
import pino from 'pino';
import { z } from 'zod';
import type { ChatModel, ChatRequest, ModelReply } from '../src/agent/chat-model.js';
import { argsFingerprint } from '../src/approvals/args-fingerprint.js';
import type { CardLookup } from '../src/approvals/card-lookup.js';
import { policySchema } from '../src/approvals/policy.js';
import type { DeliveryPort } from '../src/outbox/delivery-port.js';
import { createRuntime, type Runtime } from '../src/runtime/create-runtime.js';
import { conversationId } from '../src/store/conversation-id.js';
import { createSqliteStore, openDatabase } from '../src/store/index.js';
import type { SynchronousMode } from '../src/store/open-database.js';
import type { OutboxEntry } from '../src/store/outbox-message.js';
import type { AdmissionLimits } from '../src/store/rules/admit-turn.js';
import type { Store } from '../src/store/store.js';
import { defineTool } from '../src/tools/define-tool.js';
import { countCommits } from './count-commits.js';

const teamId = 'TBENCH';
const channelId = 'CBENCH';
const approver = 'UAPPROVER';
const requester = 'UREQUESTER';

/** The request every cycle makes, and what the peers' benchmarks ask their agents too. */
export const cycleRequest = 'restart web-1';
/** The final answer of every cycle. */
export const cycleAnswer = 'The no-op ran. Done.';

/** Zero latency and no recording: the benchmark measures holdfast, not the model or the script. */
const instantModel: ChatModel = {
  async complete(request: ChatRequest): Promise<ModelReply> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: cycleAnswer, toolCalls: [] };
    // Unique within the thread, as the API's are: a thread of many cycles keeps one transcript.
    return {
      content: null,
      toolCalls: [{ id: `call_${request.messages.length}`, name: 'noop', arguments: '{"target":"web-1"}' }],
    };
  },
};

export const benchNoopTool = defineTool({
  name: 'noop',
  description: 'Does nothing, after asking.',
  parameters: z.object({ target: z.string() }),
  permission: (args) => ({ type: 'ask', permissionType: 'noop', summary: `noop ${args.target}` }),
  execute: () => 'ok',
});

export interface HoldfastHarness {
  readonly runtime: Runtime;
  readonly commits: () => number;
  /** Parts the outbox sent (cards, card rewrites, answer messages). */
  readonly deliveries: () => number;
  readonly pendingApprovals: () => number;
  /**
   * Mention → the turn suspends and its card is delivered; resolves with the request id. `message` is
   * the mentioning message's ts (the thread's own by default; later ones are replies in the thread).
   */
  mention(thread: string, message?: string): Promise<string>;
  /** The approver taps Allow; resolves when the answer is delivered. */
  approve(thread: string, requestId: string): Promise<void>;
  /**
   * One whole cycle in a new thread: mention → card → Allow → answer delivered. The card's rewrite and
   * its recording carry on beside the next cycle: count commits over a whole run, with `settle()` at its
   * end, not per cycle.
   */
  cycle(thread: string, message?: string): Promise<void>;
  /** Waits until everything started has been delivered and recorded. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface HoldfastHarnessOptions {
  readonly synchronous: SynchronousMode;
  /** The runtime's own limits unless given. */
  readonly admission?: AdmissionLimits;
  /**
   * Keeps every frame in the WAL (`wal_autocheckpoint=0`), so `readWalFrames` can count what a run
   * wrote. Only for counting passes: a log that never resets grows, and reads slow down with it.
   */
  readonly keepWal?: boolean;
  /** As holdfast opens a file too large to page-check before serving (see `openStore`). */
  readonly pageCheck?: 'now' | 'skip';
}

/** Slack at zero latency: every part lands at once, and a test waits for the part it cares about. */
function instantSlack() {
  let sent = 0;
  const waiters = new Map<string, () => void>();
  /** Where each request's card landed, as Slack brings it back in the click payload. */
  const cards = new Map<string, string>();
  const port: DeliveryPort = {
    async plan() {
      return ['message'];
    },
    async sendPart(entry: OutboxEntry, part) {
      sent += 1;
      const ts = `${entry.id}.${part.index}`;
      if (entry.message.type === 'approval-card') cards.set(entry.message.requestId, ts);
      queueMicrotask(() => {
        const waiter = waiters.get(`${entry.conversationId}/${entry.message.type}`);
        waiter?.();
      });
      return { channel: channelId, ts };
    },
  };
  return {
    port,
    sent: () => sent,
    cardOf: (requestId: string) => cards.get(requestId),
    /**
     * Reads a clicked message back, as holdfast asks Slack: the click comes at once here, before the
     * card's ts rides into the database on the next commit, where a person's click comes seconds later.
     */
    lookup: {
      async find(approval, card) {
        return cards.get(approval.requestId) === card.ts ? 'card' : 'not-a-card';
      },
    } satisfies CardLookup,
    /** Resolves when a part of this type is sent in the conversation. */
    next(conversation: string, type: OutboxEntry['message']['type']): Promise<void> {
      return new Promise((resolve) => {
        waiters.set(`${conversation}/${type}`, () => {
          waiters.delete(`${conversation}/${type}`);
          resolve();
        });
      });
    },
  };
}

/** Commits are counted on the connection from before the store prepares its first statement. */
export function buildHoldfastHarness(file: string, options: HoldfastHarnessOptions): HoldfastHarness {
  const db = openDatabase(file, { synchronous: options.synchronous, pageCheck: options.pageCheck });
  // As holdfast runs: SQLite's own checkpoints (none at all while a counting pass reads the WAL).
  if (options.keepWal) db.pragma('wal_autocheckpoint = 0');
  const commits = countCommits(db);
  const store = createSqliteStore(db);
  return buildHarnessOn(store, {
    admission: options.admission,
    commits: commits.count,
    pendingApprovals: () =>
      Number(db.prepare('SELECT count(*) FROM approvals WHERE decision IS NULL').pluck().get()),
  });
}

/** The same cycle on any store: the benchmark runs it on PostgreSQL beside SQLite. */
export function buildHarnessOn(
  store: Store,
  options: {
    readonly admission?: AdmissionLimits;
    readonly commits: () => number;
    readonly pendingApprovals: () => number;
  },
): HoldfastHarness {
  const slack = instantSlack();
  const runtime = createRuntime({
    store,
    model: instantModel,
    policy: policySchema.parse({ approvers: { default: { users: [approver] } } }),
    tools: [benchNoopTool],
    directory: { groupMembers: async () => [] },
    logger: pino({ level: 'silent' }),
    delivery: { port: slack.port },
    cards: slack.lookup,
    admission: options.admission,
  });
  const cards = new Map<string, { ts: string; fingerprint: string }>();

  const harness: HoldfastHarness = {
    runtime,
    commits: options.commits,
    deliveries: slack.sent,
    pendingApprovals: options.pendingApprovals,
    async mention(thread, message = thread) {
      const conversation = conversationId({ teamId, channelId, threadTs: thread });
      const carded = slack.next(conversation, 'approval-card');
      const submitted = await runtime.submit({
        teamId,
        channelId,
        threadTs: thread,
        triggerKey: `${channelId}:${message}`,
        triggerTs: message,
        requestedBy: requester,
        inputText: `@requester: ${cycleRequest}`,
      });
      if (submitted.type !== 'enqueued') throw new Error(`the mention was not taken: ${submitted.type}`);
      await carded;
      const [approval] = await store.approvals.pending({ conversationId: conversation, limit: 1 });
      const cardTs = approval ? slack.cardOf(approval.requestId) : undefined;
      if (!approval || !cardTs) throw new Error(`no card was delivered in ${thread}`);
      // What the card's buttons carry, as the click payload brings it back.
      cards.set(approval.requestId, { ts: cardTs, fingerprint: argsFingerprint(approval.argsHash) });
      return approval.requestId;
    },
    async approve(thread, requestId) {
      const conversation = conversationId({ teamId, channelId, threadTs: thread });
      const answered = slack.next(conversation, 'answer');
      const decision = await runtime.decide({
        requestId,
        userId: approver,
        action: 'allow',
        origin: {
          type: 'card',
          teamId,
          enterpriseId: undefined,
          channelId,
          messageTs: cards.get(requestId)?.ts ?? '',
        },
        argsFingerprint: cards.get(requestId)?.fingerprint,
        installationEnterpriseId: undefined,
      });
      if (decision.type !== 'decided') {
        throw new Error(
          `expected a decision, got ${decision.type}: ${JSON.stringify(decision).slice(0, 300)}`,
        );
      }
      await answered;
      cards.delete(requestId);
    },
    async cycle(thread, message) {
      const requestId = await harness.mention(thread, message);
      await harness.approve(thread, requestId);
    },
    settle: () => runtime.idle(),
    async close() {
      await runtime.idle();
      await runtime.shutdown();
      await store.close();
    },
  };
  return harness;
}
