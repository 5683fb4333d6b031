import type { ApprovalEdit } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { ToolCall } from './chat-model.js';

/**
 * The edit an approver made to this call's request, if it has one: the call then runs with the edited
 * arguments the request holds, committed with the decision (invariant 4), not with the ones proposed.
 */
export async function editOf(
  store: Pick<Store, 'approvals'>,
  transcriptId: string,
  call: ToolCall,
): Promise<ApprovalEdit | null> {
  const approval = await store.approvals.forCall(transcriptId, call.id);
  return approval?.edit ?? null;
}

/**
 * What the model reads after the result of an edited call: that it was edited, by whom, and from what to
 * what, so it does not take the result for the call it proposed (nor propose that call again unasked).
 */
export function editNote(call: ToolCall, edit: ApprovalEdit): string {
  const shown = (text: string) => (text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text);
  return (
    `Edited before approval: <@${edit.by}> changed the arguments of this call. Proposed: ` +
    `${shown(call.arguments)}. Used instead: ${shown(edit.argumentsText)}. The result above is for the edited call.`
  );
}
