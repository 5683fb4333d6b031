import type { Logger } from 'pino';
import type { TurnOutcome } from '../agent/turn-runner.js';
import type { OutboxEntry } from '../outbox/outbox-message.js';
import type { TurnObserver } from '../runtime/turn-observer.js';
import { type ThreadKey, threadOf } from '../store/conversation-id.js';
import type { Turn } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { LiveAnswers } from './live-answers.js';
import type { SlackPort } from './slack-port.js';
import { ThreadLanes } from './thread-lanes.js';
import { assistantStatusText, completedEnding, statusReactions, type TurnEnding } from './turn-status.js';

export { statusReactions } from './turn-status.js';

export interface SlackTurnObserverDeps {
  readonly slack: SlackPort;
  readonly store: Store;
  readonly logger: Logger;
  /**
   * A turn shows it is working only once it has run this long: most answer within a second or two, and
   * for them an hourglass that appears and vanishes is noise (and two Slack calls each).
   */
  readonly workingAfterMs?: number;
  /** True while the process is behind: the hourglass (two Slack calls) waits, the answer does not. */
  readonly busy?: () => boolean;
  /**
   * How often the status line is sent again while a turn works: Slack drops it after two minutes with no
   * message in the thread, and a long command would otherwise look finished.
   */
  readonly statusRefreshMs?: number;
  /** The answer as it is written and the turn's tool calls, shown live; none when absent. */
  readonly live?: LiveAnswers;
}

export const defaultWorkingAfterMs = 1_500;
export const defaultStatusRefreshMs = 90_000;

/**
 * The thread's status while a turn runs: reactions and the assistant status line. Cards, answers and
 * notices are not here: they go through the outbox, which posts each of them once.
 */
export function createSlackTurnObserver(deps: SlackTurnObserverDeps): TurnObserver {
  const { slack, store, logger } = deps;
  const lanes = new ThreadLanes(logger);

  const threadAt = (conversationId: string): ThreadKey => {
    const thread = threadOf(conversationId);
    if (!thread) throw new Error(`${conversationId} names no Slack thread`);
    return thread;
  };

  // Status is decoration: a failed reaction never affects the turn.
  const react = async (thread: ThreadKey, turn: Turn, add: string | undefined, remove: string[]) => {
    for (const name of remove) {
      await slack
        .removeReaction({ channel: thread.channelId, ts: turn.triggerTs, name })
        .catch((error: unknown) => {
          logger.debug({ err: error, name }, 'could not remove status reaction');
        });
    }
    if (add) {
      await slack
        .addReaction({ channel: thread.channelId, ts: turn.triggerTs, name: add })
        .catch((error: unknown) => {
          logger.debug({ err: error, name: add }, 'could not add status reaction');
        });
    }
  };

  // In channels as in DMs: Slack shows it in any thread the bot may write to (`chat:write`), and the
  // port stops asking where it is refused.
  const assistantStatus = async (thread: ThreadKey, status: string) => {
    await slack.setAssistantStatus({
      channel: thread.channelId,
      threadTs: thread.threadTs,
      status,
    });
  };

  /** Turns running here: whether their hourglass shows yet, and what keeps their status line up. */
  const running = new Map<string, RunningTurn>();
  const workingAfterMs = deps.workingAfterMs ?? defaultWorkingAfterMs;
  const statusRefreshMs = deps.statusRefreshMs ?? defaultStatusRefreshMs;

  return {
    turnStarting: (turn, onDisk) => {
      deps.live?.starting(turn, onDisk);
      // Invariant 8: a claim handed over at its commit shows nothing until that commit is on disk.
      const claimKept = onDisk
        ? onDisk.then(
            () => true,
            () => false,
          )
        : Promise.resolve(true);
      clearTimeout(running.get(turn.id)?.timer);
      clearInterval(running.get(turn.id)?.refresh);
      const state: RunningTurn = {
        timer: undefined,
        shown: false,
        refresh: undefined,
        statusSends: 0,
        statusUnsent: 0,
        answered: undefined,
      };
      running.set(turn.id, state);
      /** Queues the working status line; `stillWorking` says whether it is still true when its turn comes. */
      const sendWorking = (stillWorking: () => Promise<boolean>) => {
        state.statusSends += 1;
        state.statusUnsent += 1;
        void lanes.add(
          turn.conversationId,
          async () => {
            try {
              if ((await claimKept) && (await stillWorking()))
                await assistantStatus(threadAt(turn.conversationId), assistantStatusText('working'));
            } finally {
              state.statusUnsent -= 1;
            }
          },
          claimKept,
        );
      };
      const showWorking = () => {
        state.timer = undefined;
        if (deps.busy?.()) {
          state.timer = setTimeout(showWorking, Math.max(workingAfterMs, 250));
          state.timer.unref();
          return;
        }
        state.shown = true;
        void lanes.add(
          turn.conversationId,
          async () => {
            if (await claimKept)
              await react(threadAt(turn.conversationId), turn, statusReactions.working, []);
          },
          claimKept,
        );
      };
      // In an assistant thread the status line is the conversation's own "thinking…": shown at once.
      sendWorking(async () => true);
      if (workingAfterMs <= 0) showWorking();
      else state.timer = setTimeout(showWorking, workingAfterMs);
      state.timer?.unref();
      state.refresh = setInterval(() => {
        sendWorking(async () => {
          // Only while it works: a turn another process took, or that ended unseen here, lets it lapse.
          const now = await store.turns.get(turn.id);
          if (running.get(turn.id) === state && now?.status === 'running') return true;
          clearInterval(state.refresh);
          return false;
        });
      }, statusRefreshMs);
      state.refresh.unref();
      // A decision resumed it: the hand goes at once, whatever happens next.
      if (turn.status !== 'awaiting_approval') return Promise.resolve();
      return lanes.add(turn.conversationId, async () => {
        await react(threadAt(turn.conversationId), turn, undefined, [statusReactions.awaiting]);
      });
    },

    turnProgress: (turn, event) => {
      deps.live?.progress(turn, event);
      const state = running.get(turn.id);
      if (event.type === 'answered' && state)
        state.answered = { statusSends: state.statusSends, statusUnsent: state.statusUnsent };
    },

    turnSettled: (outcome: TurnOutcome) => {
      if (outcome.type === 'not-claimed') return Promise.resolve();
      settleLive(outcome);
      const state = running.get(outcome.turn.id);
      running.delete(outcome.turn.id);
      clearTimeout(state?.timer);
      clearInterval(state?.refresh);
      return lanes.add(outcome.turn.conversationId, () =>
        settled(outcome, state?.shown ?? false, state !== undefined && answerClearsStatus(state)),
      );
    },

    deliveryFailed: (entry) => lanes.add(entry.conversationId, () => deliveryFailed(entry)),

    delivered: (entry) => {
      const { turnId } = entry;
      if (entry.message.type !== 'approval-card' || turnId === null) return;
      void lanes.add(entry.conversationId, async () => {
        // Slack clears the line when the app replies in the thread, the card included: it is set after.
        // Only while people are still asked: a decision may have come before the card's turn here.
        const turn = await store.turns.get(turnId);
        if (turn?.status !== 'awaiting_approval') return;
        const approvals = await store.approvals.forTurn(turnId);
        if (!approvals.some((approval) => approval.decision === null)) return;
        await assistantStatus(threadAt(entry.conversationId), assistantStatusText('awaiting'));
      });
    },

    async idle() {
      await lanes.idle();
      await deps.live?.idle();
    },
  };

  /** A completed turn's live message is left for its answer to replace (see SlackDelivery). */
  function settleLive(outcome: Exclude<TurnOutcome, { type: 'not-claimed' }>): void {
    const { live } = deps;
    if (!live) return;
    const turnId = outcome.turn.id;
    if (outcome.type === 'interrupted') live.abandon(turnId);
    else if (outcome.type !== 'completed') void live.close(turnId);
  }

  async function settled(outcome: TurnOutcome, workingShown: boolean, answerClears: boolean): Promise<void> {
    const working = workingShown ? [statusReactions.working] : [];
    switch (outcome.type) {
      case 'completed':
        return ended(outcome.turn, await endingOf(outcome.turn), working, answerClears);
      case 'awaiting-approval': {
        // The status line says so once the card shows (see `delivered`): posting the card clears it.
        await react(threadAt(outcome.turn.conversationId), outcome.turn, statusReactions.awaiting, working);
        return;
      }
      case 'failed':
        return ended(outcome.turn, 'failed', working);
      case 'not-claimed':
        return;
      case 'interrupted': {
        // Another process (or the next start) carries the turn on; this one's hourglass must not linger.
        if (workingShown)
          await react(threadAt(outcome.turn.conversationId), outcome.turn, undefined, working);
        return;
      }
    }
  }

  async function ended(
    turn: Turn,
    ending: TurnEnding,
    remove: string[],
    answerClears = false,
  ): Promise<void> {
    const thread = threadAt(turn.conversationId);
    await react(thread, turn, statusReactions[ending], remove);
    if (!answerClears) await assistantStatus(thread, assistantStatusText(ending));
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

  async function deliveryFailed(entry: OutboxEntry): Promise<void> {
    // The answer never reached the thread: the request message must not say it is done.
    if (entry.message.type !== 'answer' || entry.turnId === null) return;
    const turn = await store.turns.get(entry.turnId);
    if (!turn) return;
    const thread = threadAt(turn.conversationId);
    await react(thread, turn, statusReactions.failed, [statusReactions[await endingOf(turn)]]);
    // The reply that was to clear the status line never came.
    await assistantStatus(thread, assistantStatusText('failed'));
  }
}

interface RunningTurn {
  timer: NodeJS.Timeout | undefined;
  shown: boolean;
  refresh: NodeJS.Timeout | undefined;
  /** Working status lines queued for the turn so far, and how many of them Slack has not answered yet. */
  statusSends: number;
  statusUnsent: number;
  /** The same two counts when the model gave its answer, which is committed and only then posted. */
  answered: { readonly statusSends: number; readonly statusUnsent: number } | undefined;
}

/**
 * Slack clears the status line itself when the app replies in the thread, so the answer's post is the
 * clear, one call fewer per turn. That holds only if every working line had landed before the answer
 * could be posted: one still on its way, or sent after the answer, would show again with nothing to
 * clear it for two minutes. An answer that rewrites a live message posts nothing new; the delivery
 * clears the line then (see replace-live-answer.ts).
 */
function answerClearsStatus(state: RunningTurn): boolean {
  const { answered } = state;
  return answered !== undefined && answered.statusUnsent === 0 && answered.statusSends === state.statusSends;
}
