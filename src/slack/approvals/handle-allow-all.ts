import { type ApproverDirectory, bindingMismatch, refusalFor } from '../../approvals/decide-approval.js';
import { type ClickDeps, handleApprovalClick, replyPrivately } from './handle-approval-click.js';
import type { ClickSite } from './read-approval-click.js';

export interface AllowAllDeps extends ClickDeps {
  readonly directory: ApproverDirectory;
}

/** One call an "Allow all" button names: its request and the fingerprint of the arguments it showed. */
export interface PlanCall {
  readonly requestId: string;
  readonly argsFingerprint: string;
}

/**
 * "Allow all" on a plan's card: every call still waiting is allowed, each bound to the arguments its
 * part of the card showed, or none is. The clicker must be able to decide every one of them; when one
 * would be refused, that click goes the ordinary way (refused, audited, told why) and nothing is decided.
 */
export async function allowAll(
  deps: AllowAllDeps,
  site: ClickSite,
  calls: readonly PlanCall[],
): Promise<void> {
  const store = deps.runtime.store;
  const clickFor = (call: PlanCall) => ({ ...site, ...call, action: 'allow' as const });
  const approvals = await Promise.all(calls.map((call) => store.approvals.get(call.requestId)));
  const waiting: PlanCall[] = [];
  for (const [index, call] of calls.entries()) {
    const approval = approvals[index];
    if (approval && approval.decision !== null) continue;
    const refused =
      !approval ||
      (await bindingMismatch({ store }, approval, {
        ...clickFor(call),
        installationEnterpriseId: deps.installationEnterpriseId,
      })) !== undefined ||
      (await refusalFor(
        { policy: deps.runtime.policy, directory: deps.directory },
        approval,
        site.userId,
        'allow',
      )) !== undefined;
    if (refused) {
      await handleApprovalClick(deps, clickFor(call));
      return;
    }
    waiting.push(call);
  }
  if (waiting.length === 0) {
    await replyPrivately(deps, site, 'Nothing changed: every call of this plan was already decided.');
    return;
  }
  // One decision each, in the plan's order; the one that completes the set resumes the turn.
  for (const call of waiting) await handleApprovalClick(deps, clickFor(call));
}
