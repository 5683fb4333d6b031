import type { App } from '@slack/bolt';
import type { Redact } from '../../secrets/index.js';
import { type GrantDeps, revokeGrant } from '../approvals/manage-grants.js';
import { GRANT_REVOKE_ACTION_ID } from '../blocks/index.js';
import { blockActionsSchema } from '../payloads.js';
import { toolCodeText } from '../text/tool-code-text.js';

export interface GrantRevokeDeps extends GrantDeps {
  readonly redact: Redact;
  readonly refreshHome: (userId: string) => Promise<void>;
}

/** Revoke on a grant line (`/approvals grants`, the App Home): revoked once, and the clicker told. */
export function registerGrantRevokeListener(app: App, deps: GrantRevokeDeps): void {
  app.action(GRANT_REVOKE_ACTION_ID, async ({ ack, body, respond }) => {
    await ack();
    const parsed = blockActionsSchema.safeParse(body);
    const action = parsed.success
      ? parsed.data.actions.find((candidate) => candidate.action_id === GRANT_REVOKE_ACTION_ID)
      : undefined;
    const grantId = Number(action?.value);
    if (!parsed.success || !Number.isSafeInteger(grantId)) {
      deps.logger.warn('ignoring a malformed grant revoke');
      return;
    }
    const userId = parsed.data.user.id;
    const outcome = await revokeGrant(deps, grantId, userId);
    const text =
      outcome.type === 'revoked'
        ? `Revoked: later ${toolCodeText(outcome.grant.toolName)} calls it covered will ask for approval again.`
        : outcome.type === 'gone'
          ? 'Nothing changed: that grant was already revoked, expired or used up.'
          : `You cannot revoke this grant: only the person who made it and approvers of ${toolCodeText(outcome.grant.toolName)} can.`;
    if (parsed.data.response_url) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: deps.redact(text) }).catch(
        (error: unknown) => deps.logger.warn({ err: error }, 'could not answer a grant revoke'),
      );
    }
    if (parsed.data.view?.type === 'home') {
      await deps.refreshHome(userId).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not refresh App Home after a revoke');
      });
    }
  });
}
