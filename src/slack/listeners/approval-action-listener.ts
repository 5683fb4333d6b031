import type { App, RespondFn } from '@slack/bolt';
import type { ApproverDirectory } from '../../approvals/decide-approval.js';
import type { Redact } from '../../secrets/index.js';
import { askDecisionForm } from '../approvals/ask-decision-form.js';
import { allowAll } from '../approvals/handle-allow-all.js';
import { type ClickDeps, handleApprovalClick } from '../approvals/handle-approval-click.js';
import {
  type ApprovalButtonClick,
  readApprovalClick,
  readClickSite,
} from '../approvals/read-approval-click.js';
import { showFullArguments } from '../approvals/show-full-arguments.js';
import { APPROVAL_ACTION_IDS, PLAN_ALLOW_ALL_ACTION_ID, parseAllowAllValue } from '../blocks/index.js';
import { blockActionsSchema } from '../payloads.js';

const decisionAction = /^holdfast\.approval\.(allow|deny|always|edit)$/;

export interface ApprovalActionDeps extends Omit<ClickDeps, 'respond'> {
  readonly directory: ApproverDirectory;
  /** Rebuilds the clicker's App Home, so a click there shows the new state at once. */
  readonly refreshHome: (userId: string) => Promise<void>;
  readonly redact: Redact;
}

/** Acknowledge first (Slack allows 3 s), then decide, or open the full arguments. */
export function registerApprovalActionListener(app: App, deps: ApprovalActionDeps): void {
  const read = (body: unknown): ApprovalButtonClick | undefined => {
    const parsed = blockActionsSchema.safeParse(body);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed approval click');
      return undefined;
    }
    return readApprovalClick(parsed.data);
  };
  const privately = (click: Pick<ApprovalButtonClick, 'hasResponseUrl'>, respond: RespondFn) =>
    click.hasResponseUrl
      ? async (text: string) => {
          await respond({ response_type: 'ephemeral', replace_original: false, text: deps.redact(text) });
        }
      : undefined;

  app.action({ action_id: decisionAction }, async ({ ack, body, respond }) => {
    await ack();
    const click = read(body);
    const action = click?.kind;
    if (!click || !action || action === 'view') return;
    const clickDeps = { ...deps, respond: privately(click, respond) };
    // Deny asks for an optional reason, Always allow for what to grant and Edit for the arguments to allow,
    // before any of them decides.
    let asked = false;
    if (action === 'deny' || action === 'always' || action === 'edit')
      asked = (await askDecisionForm(clickDeps, click, action)) === 'asked';
    else await handleApprovalClick(clickDeps, { ...click, action });
    // A form opened decides nothing yet: the Home is rebuilt when it is submitted.
    if (click.viewType === 'home' && !asked) {
      await deps.refreshHome(click.userId).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not refresh App Home after a click');
      });
    }
  });

  app.action({ action_id: PLAN_ALLOW_ALL_ACTION_ID }, async ({ ack, body, respond }) => {
    await ack();
    const parsed = blockActionsSchema.safeParse(body);
    const site = parsed.success ? readClickSite(parsed.data) : undefined;
    const action = parsed.data?.actions.find((candidate) => candidate.action_id === PLAN_ALLOW_ALL_ACTION_ID);
    const calls = parseAllowAllValue(action?.value ?? '');
    if (!site || calls.length === 0) {
      deps.logger.warn('ignoring a malformed Allow all click');
      return;
    }
    await allowAll({ ...deps, respond: privately(site, respond) }, site, calls);
  });

  app.action({ action_id: APPROVAL_ACTION_IDS.view }, async ({ ack, body, respond }) => {
    await ack();
    const click = read(body);
    if (!click) return;
    await showFullArguments({ ...deps, respond: privately(click, respond) }, click);
  });
}
