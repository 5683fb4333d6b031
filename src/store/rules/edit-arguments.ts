import type { ApprovalEdit, RequestDetails } from '../records.js';
import { approvalDetailsJson } from '../rows/approval-details.js';

/** An approver's edited arguments, checked by the caller (tool schema, deny rules), for the store to apply. */
export interface ArgumentsEdit {
  /**
   * The hash of the arguments the editor was shown: the edit applies only while the request still holds
   * them, so two people editing at once cannot overwrite each other unseen.
   */
  readonly fromArgsHash: string;
  /** The edited arguments as the tool parsed them. */
  readonly arguments: unknown;
  /** Their exact text (what the resumed call parses); `argsHash` is its hash. */
  readonly argumentsText: string;
  readonly argsHash: string;
  /** The request's one line for people, said again for the edited arguments. */
  readonly summary: string;
}

/**
 * The row's details after an edit. The model's proposal is kept from the first edit on, so a request
 * edited twice still shows what was proposed, not the first edit.
 */
export function editedDetails(
  current: RequestDetails & { readonly argsHash: string; readonly edit: ApprovalEdit | null },
  edit: ArgumentsEdit,
  by: string,
  at: number,
): { readonly json: string; readonly edit: ApprovalEdit } {
  const next: ApprovalEdit = {
    proposedArguments: current.edit ? current.edit.proposedArguments : current.arguments,
    proposedArgsHash: current.edit ? current.edit.proposedArgsHash : current.argsHash,
    argumentsText: edit.argumentsText,
    by,
    at,
    count: (current.edit?.count ?? 0) + 1,
  };
  // Every other field of the request's document is kept as it was asked.
  return { json: approvalDetailsJson({ ...current, arguments: edit.arguments, edit: next }), edit: next };
}

/** Names of the top-level arguments whose values an edit changed, added or removed, for the audit row. */
export function changedArguments(before: unknown, after: unknown): string[] {
  const a = isRecord(before) ? before : {};
  const b = isRecord(after) ? after : {};
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => JSON.stringify(a[name]) !== JSON.stringify(b[name]));
}

/**
 * The outbox key suffix for a card rewrite: each state is rewritten once, and votes counted again after
 * an edit are new states (`votes-1` before the edit is not `votes-1` after it).
 */
export function cardState(edits: number, state: string): string {
  return edits === 0 ? state : `edit-${edits}-${state}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
