import type { Logger } from 'pino';
import type { CardLookup } from '../../approvals/decide-approval.js';
import { threadOf } from '../../store/conversation-id.js';
import { outboxKeys } from '../../store/outbox-message.js';
import { SlackApiError } from '../web-api/slack-errors.js';
import type { SlackPort } from '../web-api/slack-port.js';

/**
 * A clicked message that is not one of a request's recorded cards, read back from Slack: it is a card
 * of that request only if holdfast posted it as one (the card in the request's thread, or an approver's
 * DM copy), which the delivery key in its metadata says. A channel Slack will not show holdfast, or a
 * message that is not there, is no card; a Slack that does not answer leaves the question open.
 */
export function createSlackCardLookup(deps: {
  readonly slack: Pick<SlackPort, 'deliveryKeyAt'>;
  readonly logger: Logger;
}): CardLookup {
  return {
    async find(approval, card) {
      const thread = threadOf(approval.conversationId);
      // The request's own card is a reply in its thread; a DM copy is a message of its own.
      const threadTs = thread && thread.channelId === card.channel ? thread.threadTs : undefined;
      let key: string | undefined;
      try {
        key = await deps.slack.deliveryKeyAt({ channel: card.channel, threadTs, ts: card.ts });
      } catch (error) {
        if (error instanceof SlackApiError && error.refused && error.retryAfterMs === undefined) {
          return 'not-a-card';
        }
        deps.logger.warn(
          { err: error, requestId: approval.requestId, card },
          'could not read a clicked message back from Slack',
        );
        return 'unknown';
      }
      const found = key !== undefined && isDeliveryOf(approval.requestId, key);
      deps.logger.info(
        { requestId: approval.requestId, card, found },
        found
          ? 'a click came from a card whose ts was never recorded; found it in Slack'
          : 'a click named a message that is not a card of its request',
      );
      return found ? 'card' : 'not-a-card';
    },
  };
}

/** The thread's card (`card:<id>#0`) or a DM copy of any occasion (`copies:<id>:<occasion>#<user>`). */
function isDeliveryOf(requestId: string, key: string): boolean {
  return key === `${outboxKeys.card(requestId)}#0` || key.startsWith(outboxKeys.approverCopy(requestId, ''));
}
