import type { Logger } from 'pino';
import type { DecisionAction, DecisionOrigin, DecisionRequest } from '../../approvals/decide-approval.js';
import type { Runtime } from '../../runtime/create-runtime.js';
import { isStoreFault } from '../../store/store-errors.js';
import { type ApprovalOutcome, describeOutcome } from '../blocks/index.js';
import { describeRefusal } from '../text/describe-refusal.js';
import { mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { outcomeOf } from './present-approval.js';

export interface ApprovalClick {
  readonly requestId: string;
  readonly action: DecisionAction;
  readonly userId: string;
  readonly teamId: string;
  readonly origin: DecisionOrigin;
  /** The arguments fingerprint the button's block carried; undefined when it carried none. */
  readonly argsFingerprint: string | undefined;
  /** Where a private reply to the clicker goes. */
  readonly replyTo: { readonly channel: string; readonly threadTs?: string } | undefined;
  /** A denial's reason, from the deny modal. */
  readonly reason?: string;
  /** What an always-allow grants, from the grant modal. */
  readonly grant?: DecisionRequest['grant'];
  /** With allow: the arguments as edited in the edit form. */
  readonly edit?: DecisionRequest['edit'];
}

export interface ClickDeps {
  readonly runtime: Runtime;
  readonly slack: SlackPort;
  readonly logger: Logger;
  /** The Enterprise Grid organisation holdfast is installed in; undefined outside Grid. */
  readonly installationEnterpriseId: string | undefined;
  /** Replies through the click's response_url (inbox and ephemeral messages). */
  readonly respond?: (text: string) => Promise<void>;
}

export const UNKNOWN_REQUEST_REPLY =
  'This approval request is not known to holdfast (it may belong to another installation). Nothing changed.';

/**
 * A click on Allow / Deny / Always allow. The decision is the store's compare-and-set, and the card
 * rewrites commit with it (the outbox sends them); everything here is telling the clicker what happened.
 * A click that changes nothing gets a private reply saying why.
 */
export async function handleApprovalClick(deps: ClickDeps, click: ApprovalClick): Promise<void> {
  const tell = (text: string) => replyPrivately(deps, click, text);
  let outcome: Awaited<ReturnType<Runtime['decide']>>;
  try {
    outcome = await deps.runtime.decide({
      requestId: click.requestId,
      userId: click.userId,
      action: click.action,
      origin: click.origin,
      argsFingerprint: click.argsFingerprint,
      installationEnterpriseId: deps.installationEnterpriseId,
      ...(click.reason ? { reason: click.reason } : {}),
      ...(click.grant ? { grant: click.grant } : {}),
      ...(click.edit ? { edit: click.edit } : {}),
    });
  } catch (error) {
    if (!isStoreFault(error)) throw error;
    // Nothing was written, so the card stays as it was and the same click can simply be repeated.
    deps.logger.error({ err: error, requestId: click.requestId }, 'could not record a decision');
    await tell(
      'holdfast could not record your decision (its database is not writable right now). Nothing changed: try again in a moment.',
    );
    return;
  }
  switch (outcome.type) {
    case 'decided':
    case 'expired': {
      const words = describeOutcome(
        outcomeOf(outcome.approval) ?? { type: 'expired', at: outcome.approval.expiresAt },
      );
      if (outcome.type === 'expired') await tell(`This request had already expired. ${words.line}`);
      else if (click.origin.type === 'inbox') await tell(words.line);
      return;
    }
    case 'vote-recorded': {
      const more = `${outcome.remaining} more approver${outcome.remaining === 1 ? '' : 's'} needed`;
      await tell(
        click.edit
          ? `Your edit is saved and counts as your approval of the edited call; approvals start over for it, ${more}.`
          : `Your approval is counted. ${more}.`,
      );
      return;
    }
    case 'edit-refused':
      await tell(`${outcome.problem} Nothing changed: the request still waits as it was.`);
      return;
    case 'arguments-changed':
      await tell(describeRefusal('arguments-mismatch', outcome.approval));
      return;
    case 'already-voted':
      await tell('You have already approved this request; another approver has to add theirs.');
      return;
    case 'already-decided': {
      const decided = outcomeOf(outcome.approval);
      await tell(decided ? alreadyDecided(decided) : 'Nothing changed: this request was already decided.');
      return;
    }
    case 'refused':
      await tell(describeRefusal(outcome.reason, outcome.approval));
      return;
    case 'unknown':
      await tell(UNKNOWN_REQUEST_REPLY);
      return;
  }
}

/** "already allowed by @bob at …": the clicker learns who got there first, in the words of the card. */
export function alreadyDecided(outcome: ApprovalOutcome): string {
  const at = formatSlackDate(outcome.at);
  switch (outcome.type) {
    case 'allowed':
      return outcome.always
        ? `Nothing changed: this request was already allowed, with a grant, by ${mentionUser(outcome.by)} at ${at}.`
        : `Nothing changed: this request was already allowed by ${mentionUser(outcome.by)} at ${at}.`;
    case 'denied':
      return `Nothing changed: this request was already denied by ${mentionUser(outcome.by)} at ${at}.`;
    case 'expired':
      return `Nothing changed: this request expired at ${at}, nobody decided.`;
  }
}

export async function replyPrivately(
  deps: Pick<ClickDeps, 'slack' | 'logger' | 'respond'>,
  click: Pick<ApprovalClick, 'origin' | 'replyTo' | 'userId'>,
  text: string,
): Promise<void> {
  try {
    if (click.origin.type === 'inbox' && deps.respond) {
      await deps.respond(text);
      return;
    }
    if (click.replyTo) {
      await deps.slack.postEphemeral({
        channel: click.replyTo.channel,
        threadTs: click.replyTo.threadTs,
        user: click.userId,
        text,
      });
      return;
    }
    if (deps.respond) {
      await deps.respond(text);
      return;
    }
    // An App Home click has no channel and no response_url: the app's own DM is the one private place.
    await deps.slack.postMessage({ channel: click.userId, text });
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not send the private reply for a click');
  }
}
