import type { Logger } from 'pino';
import { DeliveryError } from '../../outbox/delivery-port.js';
import type { OutboxEntry, SentPart } from '../../store/outbox-message.js';
import type { Store } from '../../store/store.js';
import { answerMessage } from '../text/index.js';
import type { LiveAnswers } from '../turn-view/live-answers.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { goneMessage } from './to-delivery-error.js';

export interface ReplaceLiveAnswerDeps {
  readonly slack: SlackPort;
  readonly store: Store;
  readonly logger: Logger;
  readonly live?: LiveAnswers;
  /** The delivery's Slack call wrapper: failures become `DeliveryError`s, 429s pause the method. */
  readonly slackCall: <Result>(method: string, work: () => Promise<Result>) => Promise<Result>;
}

/**
 * The answer's first message takes the place of the turn's live message (stopped first, if it is a
 * stream), so the answer appears once, where people watched it being written. Rewriting is idempotent,
 * so a retry after a crash rewrites it again rather than posting. A live message that is gone (deleted)
 * leaves the answer to be posted as usual.
 */
export function createReplaceLiveAnswer(deps: ReplaceLiveAnswerDeps) {
  const { slack, store, slackCall } = deps;
  return async (entry: OutboxEntry, turnId: string, chunks: string[]): Promise<SentPart | undefined> => {
    const live = await deps.live?.takeOver(turnId);
    if (!live) return undefined;
    if (live.kind === 'stream') {
      // An answer never lands beside an open preview: the stream is stopped first, however long Slack
      // asks that to wait (the row waits with it). One that is no longer streaming (stopped by an earlier
      // attempt, or timed out by Slack) is the state wanted.
      try {
        await slackCall('chat.stopStream', () => slack.stopStream({ channel: live.channel, ts: live.ts }));
      } catch (error) {
        // Slack asked to wait, or did not answer: stopping is tried again. A refusal means it is not streaming.
        if (
          error instanceof DeliveryError &&
          error.disposition.type === 'retry' &&
          (error.disposition.limited === true || error.mayHaveLanded)
        )
          throw error;
        deps.logger.debug({ err: error, turnId }, 'the stream was not streaming; rewriting it');
      }
      // Stopped: a retry of the rewrite does not stop it again.
      await store.liveMessages.record(turnId, { ...live, kind: 'message' });
    }
    try {
      await slackCall('chat.update', () =>
        // Tagged with the part's key: a retry after a crash that lost this outcome finds it, not posts it.
        slack.updateMessage({
          channel: live.channel,
          ts: live.ts,
          deliveryKey: `${entry.key}#0`,
          ...answerMessage(chunks),
        }),
      );
    } catch (error) {
      if (!(error instanceof DeliveryError && goneMessage.has(error.reason))) throw error;
      deps.logger.info({ turnId, live }, 'the live message is gone; posting the answer');
      await store.liveMessages.forget(turnId);
      return undefined;
    }
    await store.liveMessages.forget(turnId);
    // A rewrite is not a reply: Slack leaves the thread's status line up, so it is cleared here (see
    // answerClearsStatus in slack-turn-observer.ts).
    const conversation = await store.conversations.get(entry.conversationId);
    if (conversation)
      await slack.setAssistantStatus({ channel: live.channel, threadTs: conversation.threadTs, status: '' });
    return { channel: live.channel, ts: live.ts };
  };
}
