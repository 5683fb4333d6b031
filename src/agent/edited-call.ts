import type { ApprovalEdit } from '../store/records.js';
import type { ToolCall } from './chat-model.js';
import { modelNoteMark } from './not-run-result.js';

/** A value as the note shows it: short, on one line. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What an approver's edit changed, argument by argument: `command` from "a" to "b". */
export function describeEdit(proposedText: string, usedText: string): string {
  const proposed = parsedObject(proposedText);
  const used = parsedObject(usedText);
  if (!proposed || !used) return `the arguments from ${shown(proposedText)} to ${shown(usedText)}`;
  const changes: string[] = [];
  for (const key of new Set([...Object.keys(proposed), ...Object.keys(used)])) {
    if (JSON.stringify(proposed[key]) === JSON.stringify(used[key])) continue;
    if (!(key in used)) changes.push(`removed \`${key}\``);
    else if (!(key in proposed)) changes.push(`added \`${key}\` = ${shown(used[key])}`);
    else changes.push(`\`${key}\` from ${shown(proposed[key])} to ${shown(used[key])}`);
  }
  return changes.length > 0
    ? changes.join('; ')
    : 'nothing that matters (the same arguments, written differently)';
}

/**
 * What the model reads after the result of an edited call: who edited it and what changed, in a sentence
 * fit to pass on; then, for the model only, that the result is the edited call's, so it does not take the
 * result for the call it proposed (nor propose that call again unasked).
 */
export function editNote(call: ToolCall, edit: ApprovalEdit, editor: string): string {
  return (
    `Edited before approval by ${editor}: changed ${describeEdit(call.arguments, edit.argumentsText)}.\n` +
    `${modelNoteMark} The result above is for the edited call, not the one you proposed; do not propose yours again unasked.`
  );
}
