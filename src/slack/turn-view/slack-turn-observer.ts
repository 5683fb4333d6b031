import type { Logger } from 'pino';
import type { TurnOutcome } from '../../agent/turn-runner.js';
import type { TurnObserver } from '../../runtime/turn-observer.js';
import { threadOf } from '../../store/conversation-id.js';
import type { Turn } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { AnswerArrivals } from './answer-arrivals.js';
import type { LiveAnswers } from './live-answers.js';
import { ThreadDecor } from './thread-decor.js';
import { completedEnding, type TurnEnding } from './turn-status.js';

export { statusReactions } from './turn-status.js';

export interface SlackTurnObserverDeps {
  /** Calls that are only nice to have (a working status, an hourglass): dropped when Slack is short. */
  readonly slack: SlackPort;
  /** Calls that end a turn's status (its final reaction and session status): they wait out limits. */
  readonly certain?: SlackPort;
  readonly store: Store;
  readonly logger: Logger;
  /**
   * A turn shows it is working only once it has run this long: most answer within a second or two, and
   * for them a status that appears and vanishes is noise, and calls out of a budget Slack keeps small.
   */
  readonly workingAfterMs?: number;
  /** True while the process is behind: the working status waits, the answer does not. */
  readonly busy?: () => boolean;
  /**
   * How often a working turn's status is sent again: the assistant status line (where the app has no
   * agent sessions) lapses after two minutes with no message in the thread.
   */
  readonly statusRefreshMs?: number;
  /** The answer as it is written and the turn's tool calls, shown live; none when absent. */
  readonly live?: LiveAnswers;
  /** How long a completed turn's tick waits for its answer to reach the thread (see `AnswerArrivals`). */
  readonly answerWaitMs?: number;
}

const defaultWorkingAfterMs = 1_500;
const defaultStatusRefreshMs = 90_000;
const defaultAnswerWaitMs = 10_000;

/** Stopping a turn fails it with this code (see `TurnStoppedError`). */
const stoppedCode = 'turn_stopped';

/**
 * The thread's status while a turn runs: the reaction on the message that asked, and the agent session
 * status (Slack's working indicator and stop button). Cards, answers and notices are not here: they go
 * through the outbox, which posts each of them once.
 *
 * The Slack call budget of a turn (see the README, "Slack's rate limits"): a turn answered within
 * `workingAfterMs` costs one reaction and its answer; a slower one adds a session status while it works
 * and the one that ends it; one that waits on people adds a bell while Slack has budget to spare. What only
 * shows a passing state is sent while its method has budget to spare; what ends a turn is always sent.
 */
export function createSlackTurnObserver(deps: SlackTurnObserverDeps): TurnObserver {
  const { store, logger } = deps;
  const decor = new ThreadDecor({ optional: deps.slack, certain: deps.certain ?? deps.slack, logger });

  /** Turns running here, and what keeps their status current. */
  const running = new Map<string, RunningTurn>();
  /** Endings being worked out (read from the store) before they are wished for. */
  const settling = new Map<string, Promise<void>>();
  /**
   * Turns whose answer could not be posted while their ending was still being worked out: that ending
   * (failed) stands, whatever their calls did.
   */
  const answerFailed = new Set<string>();
  const answers = new AnswerArrivals(deps.answerWaitMs ?? defaultAnswerWaitMs);
  const workingAfterMs = deps.workingAfterMs ?? defaultWorkingAfterMs;
  const statusRefreshMs = deps.statusRefreshMs ?? defaultStatusRefreshMs;

  /** Follows the turn's message; false when its conversation names no Slack thread. */
  const follow = (turn: Turn, shownEnding?: TurnEnding): boolean => {
    const thread = threadOf(turn.conversationId);
    if (!thread) return false;
    decor.follow(
      turn.id,
      { thread, triggerTs: turn.triggerTs },
      // Taken over waiting (after a restart, or from another process): its bell and its suspended session
      // may be showing. Taken over running (its process died): its hourglass and working session may be.
      // Settled already: the ending it was shown with may be on the message.
      turn.status === 'awaiting_approval'
        ? { reactions: ['awaiting'], session: true }
        : turn.status === 'running'
          ? { reactions: ['working'], session: true }
          : shownEnding
            ? { reactions: [shownEnding] }
            : {},
    );
    return true;
  };

  const stopTimers = (turnId: string) => {
    const state = running.get(turnId);
    clearTimeout(state?.timer);
    clearInterval(state?.refresh);
    running.delete(turnId);
  };

  return {
    turnStarting: (turn) => {
      deps.live?.starting(turn);
      stopTimers(turn.id);
      if (!follow(turn)) return Promise.resolve();
      const state: RunningTurn = { timer: undefined, refresh: undefined };
      running.set(turn.id, state);
      // Resumed after a decision: it no longer waits on people.
      if (turn.status === 'awaiting_approval') decor.wish(turn.id, { reaction: 'none', certain: false });
      const showWorking = () => {
        state.timer = undefined;
        if (deps.busy?.()) {
          state.timer = setTimeout(showWorking, Math.max(workingAfterMs, 250));
          state.timer.unref();
          return;
        }
        decor.wish(turn.id, { reaction: 'working', session: 'processing', certain: false });
        state.refresh = setInterval(() => {
          decor.wish(turn.id, { session: 'processing', certain: false, resend: true });
        }, statusRefreshMs);
        state.refresh.unref();
      };
      state.timer = setTimeout(showWorking, workingAfterMs);
      state.timer.unref();
      return Promise.resolve();
    },

    turnProgress: (turn, event) => {
      deps.live?.progress(turn, event);
    },

    turnSettled: (outcome: TurnOutcome) => {
      if (outcome.type === 'not-claimed') return Promise.resolve();
      const { turn } = outcome;
      stopTimers(turn.id);
      settleLive(outcome);
      if (!follow(turn)) return Promise.resolve();
      const settled: Promise<void> = settle(outcome)
        .catch((error: unknown) =>
          logger.debug({ err: error, turnId: turn.id }, 'could not settle the thread status'),
        )
        .finally(() => {
          if (settling.get(turn.id) === settled) settling.delete(turn.id);
          answerFailed.delete(turn.id);
          answers.forget(turn.id);
        });
      settling.set(turn.id, settled);
      return Promise.resolve();
    },

    deliveryFailed: async (entry) => {
      // The answer never reached the thread: the request message must not say it is done.
      if (entry.message.type !== 'answer' || entry.turnId === null) return;
      answers.failed(entry.turnId);
      const turn = await store.turns.get(entry.turnId);
      if (!turn) return;
      // Its ending may have been shown before Slack refused the answer (the tick must then come off); a
      // turn still followed here knows what it shows, and the ending read here is then not used.
      const shownEnding = turn.status === 'completed' ? await endingOf(turn) : undefined;
      if (!follow(turn, shownEnding)) return;
      if (settling.has(turn.id)) answerFailed.add(turn.id);
      decor.wish(turn.id, { reaction: 'failed', session: 'active', sessionWhen: 'if-shown', certain: true });
      decor.forget(turn.id);
    },

    delivered: (entry) => {
      const { turnId } = entry;
      if (entry.message.type === 'answer' && turnId !== null) {
        answers.arrived(turnId, running.has(turnId) || settling.has(turnId));
        return;
      }
      const card = entry.message.type === 'approval-card' || entry.message.type === 'approval-plan';
      if (!card || turnId === null) return;
      void (async () => {
        // Only while people are still asked: a decision may have come before the card's turn here.
        const turn = await store.turns.get(turnId);
        if (turn?.status !== 'awaiting_approval' || !follow(turn)) return;
        const approvals = await store.approvals.forTurn(turnId);
        if (!approvals.some((approval) => approval.decision === null)) return;
        // Slack's working indicator (and its stop button) must not stay up while people are asked; the
        // bell on the message is only nice to have.
        decor.wish(turnId, { session: 'suspended', certain: false, sessionWhen: 'certain-if-shown' });
        decor.wish(turnId, { reaction: 'awaiting', certain: false });
      })().catch((error: unknown) =>
        logger.debug({ err: error, turnId }, 'could not show the card is waiting'),
      );
    },

    async idle() {
      await Promise.all(settling.values());
      await decor.idle();
      await deps.live?.idle();
    },
  };

  /** A completed turn's live message is left for its answer to replace (see SlackDelivery). */
  function settleLive(outcome: Exclude<TurnOutcome, { type: 'not-claimed' }>): void {
    const { live } = deps;
    if (!live) return;
    const turnId = outcome.turn.id;
    if (outcome.type === 'interrupted') live.abandon(turnId);
    else if (outcome.type === 'failed') void live.close(turnId, undefined, { ended: true });
    else if (outcome.type !== 'completed') void live.close(turnId);
  }

  async function settle(outcome: Exclude<TurnOutcome, { type: 'not-claimed' }>): Promise<void> {
    const { turn } = outcome;
    switch (outcome.type) {
      case 'completed': {
        const ending = await endingOf(turn);
        // The answer could not be posted meanwhile: that ending (failed) stands.
        if (answerFailed.has(turn.id)) return;
        // Shown once the answer is there to read; the session goes back to idle only if it showed
        // something: a quick answer never opened one.
        answers.afterAnswer(turn.id, () => {
          decor.wish(turn.id, {
            reaction: ending,
            session: 'active',
            sessionWhen: 'if-shown',
            certain: true,
          });
          decor.forget(turn.id);
        });
        return;
      }
      case 'awaiting-approval':
        // The working hourglass goes; the bell and the suspended session follow once the card shows.
        if (decor.showing(turn.id, 'working')) decor.wish(turn.id, { reaction: 'none', certain: true });
        return;
      case 'failed': {
        const stopped = outcome.error.code === stoppedCode;
        // A stopped turn closes its session (Slack's stop button included) even if it never showed one.
        decor.wish(turn.id, {
          reaction: 'failed',
          session: stopped ? 'closed' : 'active',
          sessionWhen: stopped ? undefined : 'if-shown',
          certain: true,
        });
        decor.forget(turn.id);
        return;
      }
      case 'interrupted':
        // Another process (or the next start) carries the turn on; this one's hourglass must not linger.
        if (decor.showing(turn.id, 'working')) decor.wish(turn.id, { reaction: 'none', certain: false });
        decor.forget(turn.id);
        return;
    }
  }

  /** A completed turn reads as done only when nothing it asked for was denied, expired or cut short. */
  async function endingOf(turn: Turn): Promise<TurnEnding> {
    const approvals = await store.approvals.forTurn(turn.id);
    // Read from the outcome kept with each result, so the ending is the same after a restart.
    const outcomes = (await store.transcript.turnMessages(turn.id)).flatMap((message) =>
      message.role === 'tool' && message.outcome ? [message.outcome] : [],
    );
    return completedEnding({ decisions: approvals.map((approval) => approval.decision), outcomes });
  }
}

interface RunningTurn {
  timer: NodeJS.Timeout | undefined;
  refresh: NodeJS.Timeout | undefined;
}
