import type { ApprovalEdit } from '../store/records.js';
import type { ToolCall } from './chat-model.js';

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
