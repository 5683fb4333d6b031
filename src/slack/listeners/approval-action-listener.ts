import type { App } from '@slack/bolt';
import type { DecisionOrigin } from '../../approvals/decide-approval.js';
import type { Redact } from '../../secrets/index.js';
import { approvalActionKind } from '../blocks/index.js';
import { type ClickDeps, handleApprovalClick } from '../handle-approval-click.js';
import { blockActionsSchema } from '../payloads.js';

const approvalAction = /^holdfast\.approval\.(allow|deny|always)$/;

export interface ApprovalActionDeps extends Omit<ClickDeps, 'respond'> {
  /** Rebuilds the clicker's App Home, so a click there shows the new state at once. */
  readonly refreshHome: (userId: string) => Promise<void>;
  readonly redact: Redact;
}

/** Acknowledge first (Slack allows 3 s), then decide. */
export function registerApprovalActionListener(app: App, deps: ApprovalActionDeps): void {
  app.action({ action_id: approvalAction }, async ({ ack, body, respond }) => {
    await ack();
    const parsed = blockActionsSchema.safeParse(body);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed approval click');
      return;
    }
    const payload = parsed.data;
    const action = payload.actions.find((candidate) => approvalActionKind(candidate.action_id));
    const kind = action ? approvalActionKind(action.action_id) : undefined;
    const teamId = payload.team?.id ?? payload.user.team_id;
    if (!action || !kind || !teamId) return;
    const container = payload.container;
    const channel = container?.channel_id ?? payload.channel?.id;
    const onCard =
      container?.type === 'message' && container.is_ephemeral !== true && channel && container.message_ts;
    const origin: DecisionOrigin = onCard
      ? { type: 'card', teamId, channelId: channel, messageTs: container.message_ts! }
      : { type: 'inbox', teamId };
    await handleApprovalClick(
      {
        ...deps,
        respond: payload.response_url
          ? async (text) => {
              await respond({ response_type: 'ephemeral', replace_original: false, text: deps.redact(text) });
            }
          : undefined,
      },
      {
        requestId: action.value,
        action: kind,
        userId: payload.user.id,
        teamId,
        origin,
        replyTo: channel ? { channel, threadTs: payload.message?.thread_ts } : undefined,
      },
    );
    if (container?.type === 'view') {
      await deps.refreshHome(payload.user.id).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not refresh App Home after a click');
      });
    }
  });
}
