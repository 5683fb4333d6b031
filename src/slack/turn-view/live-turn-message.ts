import type { Logger } from 'pino';
import type { TurnProgress } from '../../agent/turn-progress.js';
import type { ThreadKey } from '../../store/conversation-id.js';
import type { Turn } from '../../store/records.js';
import type { LiveMessage } from '../../store/store.js';
import { stopTurnActions } from '../blocks/stop-button.js';
import { SlackApiError } from '../web-api/slack-errors.js';
import type { SlackPort, StreamChunk } from '../web-api/slack-port.js';
import {
  defuseMentions,
  fallbackMessage,
  fallbackText,
  type LiveTurnTask,
  type TaskStatus,
  taskChunk,
  taskDetails,
  taskTitle,
} from './live-turn-content.js';

export { defuseMentions } from './live-turn-content.js';

export interface LiveTurnTiming {
  readonly now: () => number;
  readonly showAfterMs: number;
  /** While true, a live message not yet open waits another `showAfterMs` (shed first under load). */
  readonly busy: () => boolean;
  readonly streamIntervalMs: number;
  readonly updateIntervalMs: number;
  /** Channels where `chat.startStream` was refused: they get a message kept up to date instead. */
  readonly noStreaming: Set<string>;
}

type Opened = Omit<LiveMessage, 'owner'>;

/** How soon a preview put off under load looks again (the load gauge's own window). */
const busyRecheckMs = 250;

export interface LiveTurnMessageOptions {
  readonly turn: Turn;
  /** The turn's thread; undefined when its conversation id names none (the message then never opens). */
  readonly thread: ThreadKey | undefined;
  readonly timing: LiveTurnTiming;
  readonly slack: SlackPort;
  readonly logger: Logger;
  readonly record: (message: Opened) => Promise<void>;
  /**
   * Runs once before the message opens (closing what a dead process left open for the turn): only then,
   * since only a process that holds the turn reports progress that opens one.
   */
  readonly before: () => Promise<void>;
}

/** Text with no whitespace this long is sent as it is rather than held for the rest of its word. */
const longestHeldWord = 200;

/**
 * The live message of one running turn: the answer's text as the model writes it and a task per tool
 * call, sent at most once per interval (Slack's tiers), in a Slack stream where the conversation allows
 * one and in a message rewritten with `chat.update` where it does not. Text goes out whole words at a
 * time, so a secret is never cut in two on its way past the redactor, and mentions in it are defused:
 * this is a preview, and the delivered answer (with its own rules) replaces it.
 */
export class LiveTurnMessage {
  readonly #options: LiveTurnMessageOptions;
  readonly #startedAt: number;
  #chain: Promise<void>;
  #opened: Opened | undefined;
  /** All the text of the current reply, and how much of it has been sent. */
  #text = '';
  #sent = 0;
  /** The model finished this reply's text (it went on to its calls): no word of it is left to come. */
  #whole = false;
  readonly #tasks = new Map<string, LiveTurnTask>();
  readonly #dirty = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #notBefore = 0;
  #closed = false;

  constructor(options: LiveTurnMessageOptions) {
    this.#options = options;
    this.#startedAt = options.timing.now();
    this.#chain = Promise.resolve();
  }

  get ts(): string | undefined {
    return this.#opened?.ts;
  }

  apply(event: TurnProgress): void {
    if (this.#closed) return;
    const now = this.#options.timing.now();
    switch (event.type) {
      case 'text':
        this.#text += event.delta;
        this.#whole = false;
        break;
      case 'text-reset':
        // What a stream already showed stays; what was not sent yet is dropped with the broken reply.
        this.#text = this.#text.slice(0, this.#sent);
        break;
      case 'tool-planned':
        this.#whole = true;
        this.#task(event.call.id, taskTitle(event.call), 'pending', undefined);
        break;
      case 'tool-started':
        this.#task(event.call.id, taskTitle(event.call), 'in_progress', undefined).startedAt = now;
        break;
      case 'tool-finished': {
        const startedAt = this.#tasks.get(event.call.id)?.startedAt;
        const seconds = startedAt === undefined ? 0 : Math.round((now - startedAt) / 1000);
        const status = event.outcome.type === 'succeeded' ? 'complete' : 'error';
        const took = seconds >= 2 ? `took ${seconds} s` : undefined;
        this.#task(event.call.id, taskTitle(event.call), status, taskDetails(event.outcome, took));
        break;
      }
      case 'awaiting-approval':
        for (const call of event.calls)
          this.#task(call.id, taskTitle(call), 'pending', 'waiting for approval');
        break;
      case 'answered':
        // The answer replaces this message when it is posted: nothing changes before then.
        return;
    }
    this.#schedule();
  }

  /**
   * No more updates. With `flush`, what is waiting goes out first (a turn that now waits on people shows
   * its tasks as they stand). Returns the message, if one was opened.
   */
  async settle({ flush = false }: { flush?: boolean } = {}): Promise<Opened | undefined> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (flush && !this.#closed && this.#opened) this.#enqueue(true);
    this.#closed = true;
    await this.#chain;
    return this.#opened;
  }

  /** Stops without waiting (the turn started again elsewhere in this process). */
  cancel(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  idle(): Promise<void> {
    return this.#chain;
  }

  /** The fallback message's text: the reply so far in mrkdwn, then one line per task. */
  rendered(): string {
    return fallbackText(this.#text.slice(0, this.#sent), this.#tasks.values());
  }

  #task(id: string, title: string, status: TaskStatus, details: string | undefined): LiveTurnTask {
    const task = this.#tasks.get(id) ?? { title, status, details, startedAt: undefined };
    // The arguments come after the name: a task planned as `run_shell` is named for its command later.
    task.title = title;
    task.status = status;
    task.details = details ?? (status === 'pending' ? task.details : undefined);
    this.#tasks.set(id, task);
    this.#dirty.add(id);
    return task;
  }

  #schedule(): void {
    if (this.#closed || this.#timer) return;
    const { timing } = this.#options;
    if (!this.#opened && !Number.isFinite(timing.showAfterMs)) return;
    const due = this.#opened
      ? this.#notBefore
      : Math.max(this.#notBefore, this.#startedAt + timing.showAfterMs);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        if (!this.#opened && timing.busy()) {
          // The answer still arrives whole through the outbox; only the preview is given up for now.
          this.#notBefore = timing.now() + Math.max(timing.showAfterMs, busyRecheckMs);
          this.#schedule();
          return;
        }
        this.#enqueue(false);
      },
      Math.max(0, due - timing.now()),
    );
    this.#timer.unref();
  }

  #enqueue(final: boolean): void {
    this.#chain = this.#chain
      .then(() => this.#flush(final))
      .catch((error: unknown) => {
        this.#options.logger.debug(
          { err: error, turnId: this.#options.turn.id },
          'could not update the live message',
        );
      });
  }

  async #flush(final: boolean): Promise<void> {
    if (this.#closed && !final) return;
    const { slack, timing } = this.#options;
    const { raw, text } = this.#takeText(final);
    const dirty = [...this.#dirty];
    const tasks = dirty.flatMap((id) => {
      const task = this.#tasks.get(id);
      return task ? [taskChunk(id, task)] : [];
    });
    this.#dirty.clear();
    if (text === '' && tasks.length === 0) return;
    const chunks: StreamChunk[] = [...(text ? [{ type: 'markdown_text' as const, text }] : []), ...tasks];
    const opened = this.#opened;
    try {
      if (!opened) {
        await this.#options.before();
        this.#opened = await this.#open(chunks);
        await this.#options.record(this.#opened);
      } else if (opened.kind === 'stream') {
        await slack.appendStream({ channel: opened.channel, ts: opened.ts, chunks });
      } else {
        await slack.updateMessage({
          channel: opened.channel,
          ts: opened.ts,
          ...fallbackMessage(this.rendered(), this.#options.turn.id),
        });
      }
    } catch (error) {
      if (error instanceof SlackApiError && error.retryAfterMs !== undefined) {
        // Nothing was shown: it goes out with the next update, once Slack allows it.
        this.#sent -= raw.length;
        for (const id of dirty) this.#dirty.add(id);
        this.#notBefore = timing.now() + error.retryAfterMs;
      } else if (opened?.kind === 'stream') {
        // Slack ended the stream (it times out): the same message is rewritten from here on.
        this.#opened = { ...opened, kind: 'message' };
        await this.#options.record(this.#opened);
        for (const id of this.#tasks.keys()) this.#dirty.add(id);
      } else {
        throw error;
      }
    }
    const interval = this.#opened?.kind === 'stream' ? timing.streamIntervalMs : timing.updateIntervalMs;
    this.#notBefore = Math.max(this.#notBefore, timing.now() + interval);
    if (!this.#closed && (this.#dirty.size > 0 || this.#sent < this.#text.length)) this.#schedule();
  }

  async #open(chunks: readonly StreamChunk[]): Promise<Opened> {
    const { slack, timing, turn, logger } = this.#options;
    const { thread } = this.#options;
    if (!thread) throw new Error(`${turn.conversationId} names no Slack thread`);
    const channel = thread.channelId;
    if (!timing.noStreaming.has(channel)) {
      try {
        const started = await slack.startStream({
          channel,
          threadTs: thread.threadTs,
          recipientUserId: turn.requestedBy,
          recipientTeamId: thread.teamId,
          chunks: [...chunks, { type: 'blocks', blocks: [stopTurnActions(turn.id)] }],
        });
        return { channel: started.channel, ts: started.ts, kind: 'stream' };
      } catch (error) {
        if (!(error instanceof SlackApiError) || error.retryAfterMs !== undefined || !error.refused)
          throw error;
        logger.info(
          { channel, slackError: error.slackError },
          'answer streaming is not available here; updating a message instead',
        );
        timing.noStreaming.add(channel);
      }
    }
    const posted = await slack.postMessage({
      channel,
      threadTs: thread.threadTs,
      text: this.rendered(),
    });
    return { channel: posted.channel, ts: posted.ts, kind: 'message' };
  }

  /** The unsent text up to its last whitespace (all of it when `final`), and as shown; marked as sent. */
  #takeText(final: boolean): { raw: string; text: string } {
    const unsent = this.#text.slice(this.#sent);
    const lastSpace = Math.max(unsent.lastIndexOf(' '), unsent.lastIndexOf('\n'), unsent.lastIndexOf('\t'));
    const end =
      final || this.#whole || unsent.length - lastSpace > longestHeldWord ? unsent.length : lastSpace + 1;
    this.#sent += end;
    const raw = unsent.slice(0, end);
    return { raw, text: defuseMentions(raw) };
  }
}
