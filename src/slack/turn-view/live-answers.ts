import type { Logger } from 'pino';
import type { TurnProgress } from '../../agent/turn-progress.js';
import { threadOf } from '../../store/conversation-id.js';
import type { Turn } from '../../store/records.js';
import type { LiveMessage, Store } from '../../store/store.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { LiveTurnMessage, type LiveTurnTiming } from './live-turn-message.js';

export interface LiveAnswersDeps {
  /** Previews: opened and updated only while Slack has budget to spare (see `CallPriority`). */
  readonly slack: SlackPort;
  /**
   * Closing what opened: a stream that opened is always stopped, waiting out Slack's limits. `slack` when
   * absent.
   */
  readonly certain?: SlackPort;
  readonly store: Store;
  readonly logger: Logger;
  /** This process, as written on the live messages it opens. */
  readonly owner: () => string;
  readonly now?: () => number;
  /**
   * A turn shows a live message only once it has run this long: most answers come within a second, and
   * for them one finished post is better than a stream that opens and is replaced at once.
   * `Infinity` never shows one (answers are then only posted when complete).
   */
  readonly showAfterMs?: number;
  /**
   * True while the process is behind (see `LoadPressure`): a live message that has not opened yet waits,
   * since a preview costs Slack calls and event-loop time that acknowledgements need more.
   */
  readonly busy?: () => boolean;
  /** Least time between two appends to one stream (`chat.appendStream` is Tier 4). */
  readonly streamIntervalMs?: number;
  /** Least time between two rewrites of a fallback message (`chat.update` is Tier 3). */
  readonly updateIntervalMs?: number;
}

/**
 * A preview costs a stream's opening and closing (`chat.startStream` and `chat.stopStream`, Tier 2: about
 * twenty a minute per workspace) besides the answer: it pays for a turn that runs a while (a tool call, a
 * long answer), not for the many that answer within a few seconds.
 */
const defaultShowAfterMs = 4_000;

/** What people see of a turn still running, and what its answer replaces. */
export interface LiveAnswers {
  /** A turn starts (or resumes) here: a message another process left open for it is closed first. */
  starting(turn: Turn): void;
  progress(turn: Turn, event: TurnProgress): void;
  /** The turn stopped here without an end (shutdown, lost lease): what it showed is left for recovery. */
  abandon(turnId: string): void;
  /** The turn stopped short of an answer (waits on people, failed): its message is closed as it stands. */
  /**
   * `ended`: the turn is over for good (stopped, failed), so its Stop button goes too; a turn that waits
   * on people keeps it, since Stop still ends it.
   */
  close(turnId: string, note?: string, options?: { readonly ended?: boolean }): Promise<void>;
  /**
   * The turn's answer is about to be delivered: no more updates, the ones in flight finish, and the
   * message to replace (this process's, or one a crashed process recorded) is handed over.
   */
  takeOver(turnId: string): Promise<LiveMessage | undefined>;
  /** Resolves when every update started so far is done. */
  idle(): Promise<void>;
}

const interruptedNote = '_Interrupted: holdfast restarted while this was running. It carries on below._';

export function createLiveAnswers(deps: LiveAnswersDeps): LiveAnswers {
  const { store, logger, slack } = deps;
  const certain = deps.certain ?? slack;
  const timing: LiveTurnTiming = {
    now: deps.now ?? Date.now,
    showAfterMs: deps.showAfterMs ?? defaultShowAfterMs,
    busy: deps.busy ?? (() => false),
    streamIntervalMs: deps.streamIntervalMs ?? 1_000,
    updateIntervalMs: deps.updateIntervalMs ?? 3_000,
    noStreaming: new Set(),
  };
  const live = new Map<string, LiveTurnMessage>();

  /** Closes what a process that is gone left open for this turn, saying it was interrupted. */
  const closeAbandoned = async (turnId: string): Promise<void> => {
    const left = await store.liveMessages.get(turnId);
    if (!left) return;
    await finish(left, interruptedNote, undefined).catch((error: unknown) => {
      logger.debug({ err: error, turnId }, 'could not close a live message left open');
    });
    await store.liveMessages.forget(turnId);
  };

  /** Ends a live message with `note` under what it shows (`shown`: its text, when this process has it). */
  const finish = async (
    message: Omit<LiveMessage, 'owner'>,
    note: string | undefined,
    shown: string | undefined,
    ended = false,
  ): Promise<void> => {
    const chunks = note ? [{ type: 'markdown_text' as const, text: `\n\n${note}` }] : undefined;
    if (message.kind === 'stream') {
      await certain.stopStream({ channel: message.channel, ts: message.ts, chunks });
    }
    if (ended) {
      // What is true now, with no Stop button: a control that can do nothing any more is not shown.
      const text =
        [shown, note].filter((part) => part !== undefined && part !== '').join('\n\n') || 'Stopped.';
      await certain.updateMessage({
        channel: message.channel,
        ts: message.ts,
        text,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
      });
    } else if (message.kind === 'message' && note) {
      // A message rewritten by a process that is gone: what it showed is not known here, only that it stopped.
      await certain.updateMessage({
        channel: message.channel,
        ts: message.ts,
        text: shown ? `${shown}\n\n${note}` : note,
      });
    }
  };

  return {
    starting(turn) {
      live.get(turn.id)?.cancel();
      const message = new LiveTurnMessage({
        turn,
        thread: threadOf(turn.conversationId),
        timing,
        slack,
        logger,
        record: (stored) => store.liveMessages.record(turn.id, { ...stored, owner: deps.owner() }),
        before: () => closeAbandoned(turn.id),
      });
      live.set(turn.id, message);
    },

    progress(turn, event) {
      live.get(turn.id)?.apply(event);
    },

    abandon(turnId) {
      live.get(turnId)?.cancel();
      live.delete(turnId);
    },

    async close(turnId, note, options) {
      const message = live.get(turnId);
      if (!message) return closeAbandoned(turnId);
      live.delete(turnId);
      const opened = await message.settle({ flush: true });
      if (!opened) {
        await closeAbandoned(turnId);
        return;
      }
      await finish(opened, note, message.rendered(), options?.ended).catch((error: unknown) => {
        logger.debug({ err: error, turnId }, 'could not close a live message');
      });
      await store.liveMessages.forget(turnId);
    },

    async takeOver(turnId) {
      const message = live.get(turnId);
      if (message) {
        live.delete(turnId);
        await message.settle();
      }
      return store.liveMessages.get(turnId);
    },

    async idle() {
      await Promise.all([...live.values()].map((message) => message.idle()));
    },
  };
}
