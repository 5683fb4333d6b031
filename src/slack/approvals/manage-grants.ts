import type { Logger } from 'pino';
import type { ApproverDirectory } from '../../approvals/decide-approval.js';
import type { Policy } from '../../approvals/policy.js';
import { approversFor } from '../../approvals/policy-lookup.js';
import type { Grant } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import type { GrantListItem } from '../blocks/index.js';

export interface GrantDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
}

/** Where each grant applies, in words a list can show: a channel, or a thread in one. */
export async function grantItems(
  deps: Pick<GrantDeps, 'store'>,
  grants: readonly Grant[],
): Promise<GrantListItem[]> {
  return Promise.all(
    grants.map(async (grant): Promise<GrantListItem> => {
      if (grant.scope === 'channel') return { grant, where: `<#${grant.scopeId}>` };
      const conversation = await deps.store.conversations.get(grant.scopeId);
      return { grant, where: conversation ? `a thread in <#${conversation.channelId}>` : 'one thread' };
    }),
  );
}

/** Standing grants of a channel and of every thread in it, for `/approvals grants` there. */
export async function grantsInChannel(
  deps: Pick<GrantDeps, 'store'>,
  channelId: string,
): Promise<GrantListItem[]> {
  return grantItems(deps, await deps.store.grants.list({ inChannel: channelId }));
}

export type RevokeOutcome =
  | { readonly type: 'revoked'; readonly grant: Grant }
  | { readonly type: 'gone' }
  | { readonly type: 'not-allowed'; readonly grant: Grant };

/**
 * Revokes a grant for the person who made it, or for anyone who may approve the tool it covers; anyone
 * else is refused and the refusal audited. A grant already revoked, expired or used up is gone.
 */
export async function revokeGrant(deps: GrantDeps, grantId: number, userId: string): Promise<RevokeOutcome> {
  const grant = await deps.store.grants.get(grantId);
  if (!grant) return { type: 'gone' };
  if (!(await mayRevoke(deps, grant, userId))) {
    await deps.store.audit.record({
      actor: userId,
      kind: 'approval.refused',
      conversationId: grant.scope === 'conversation' ? grant.scopeId : null,
      data: { reason: 'not-approver', action: 'revoke-grant', grantId: grant.id, tool: grant.toolName },
    });
    deps.logger.warn({ grantId, user: userId }, 'grant revoke refused');
    return { type: 'not-allowed', grant };
  }
  if (!(await deps.store.grants.revoke(grantId, userId))) return { type: 'gone' };
  deps.logger.info(
    { grantId, user: userId, tool: grant.toolName, scope: grant.scope, scopeId: grant.scopeId },
    'grant revoked',
  );
  return { type: 'revoked', grant };
}

async function mayRevoke(deps: GrantDeps, grant: Grant, userId: string): Promise<boolean> {
  if (grant.createdBy === userId) return true;
  const approvers = approversFor(deps.policy, grant.toolName, grant.toolName);
  if (approvers.users.includes(userId)) return true;
  for (const group of approvers.groups) {
    if ((await deps.directory.groupMembers(group)).includes(userId)) return true;
  }
  return false;
}
