import { mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, oneLine } from '../text/truncate-text.js';
import type { CardOptions } from './approval-card-parts.js';
import type { ApprovalOutcome } from './approval-view.js';

export interface OutcomeWords {
  /** Plain text for a header: "Allowed". */
  readonly title: string;
  /** mrkdwn with who and when: "✅ Allowed by <@U2> at <!date^…>". */
  readonly line: string;
  /** mrkdwn without the date, for fallback text: "Allowed by <@U2>". */
  readonly fallback: string;
}

/** How a decision reads on the decided card, in fallback text and in the App Home history. */
export function describeOutcome(outcome: ApprovalOutcome, options: CardOptions = {}): OutcomeWords {
  const at = formatSlackDate(outcome.at, { timeZone: options.timeZone });
  switch (outcome.type) {
    case 'allowed': {
      const by = mentionUser(outcome.by);
      return outcome.always
        ? {
            title: 'Allowed, with a grant',
            line: `✅ Allowed by ${by} at ${at}, with a grant for later calls (\`/approvals grants\`)`,
            fallback: `Allowed by ${by}, with a grant for later calls`,
          }
        : { title: 'Allowed', line: `✅ Allowed by ${by} at ${at}`, fallback: `Allowed by ${by}` };
    }
    case 'denied': {
      const by = mentionUser(outcome.by);
      // The approver's own words, quoted on one line: they may hold anything, mentions and markup included.
      const said = outcome.reason ? `“${escapeAndTruncate(oneLine(outcome.reason), 500)}”` : undefined;
      return {
        title: 'Denied',
        line: `⛔ Denied by ${by} at ${at}${said ? `: ${said}` : ''}`,
        fallback: `Denied by ${by}${said ? ` (${said})` : ''}`,
      };
    }
    case 'expired':
      return {
        title: 'Expired',
        line: `⌛ Expired at ${at}, nobody decided`,
        fallback: 'Expired, nobody decided',
      };
  }
}
