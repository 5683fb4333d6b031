import type { DecisionModalSubmission } from './read-decision-modal.js';

/** The action id of every input of the edit form; each argument has a block of its own. */
export const EDIT_FIELD_ACTION_ID = 'value';
/** Slack's limit on a plain text input's value. */
const EDIT_INPUT_MAX = 3000;
/** Inputs a form may hold, leaving room for the blocks around them (a view holds at most 100). */
const EDIT_FIELDS_MAX = 90;

/**
 * One top-level argument in the edit form: text as it is, anything else as JSON, and a value that holds
 * a secret shown redacted and kept as it is (the form would otherwise put the secret in Slack, or replace
 * it with its redaction).
 */
export interface EditField {
  readonly name: string;
  readonly blockId: string;
  readonly kind: 'text' | 'json' | 'kept';
  /** What the input starts with; for `kept`, the redacted value shown instead. */
  readonly initial: string;
  readonly multiline: boolean;
}

/**
 * The form's fields for a request's arguments, in their order; undefined when they cannot be edited in
 * Slack (not an object of arguments, a value longer than an input holds, too many of them). Deterministic,
 * so the submission is read back against the same fields, derived again from the same arguments.
 */
export function editFields(args: unknown, redact: (text: string) => string): EditField[] | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const entries = Object.entries(args);
  if (entries.length === 0 || entries.length > EDIT_FIELDS_MAX) return undefined;
  const fields: EditField[] = [];
  for (const [index, [name, value]] of entries.entries()) {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    if (text.length > EDIT_INPUT_MAX) return undefined;
    const shown = redact(text);
    fields.push({
      name,
      blockId: `holdfast.edit.${index}`,
      kind: shown !== text ? 'kept' : typeof value === 'string' ? 'text' : 'json',
      initial: shown,
      multiline: text.includes('\n') || text.length > 80,
    });
  }
  return fields;
}

export type EditedArguments =
  | { readonly type: 'arguments'; readonly arguments: Record<string, unknown> }
  /** Shown beside the inputs, with the form left open (`response_action: errors`). */
  | { readonly type: 'errors'; readonly errors: Record<string, string> };

/** The edited arguments from a submission of the form `fields` built, over the request's arguments. */
export function readEditedArguments(
  fields: readonly EditField[],
  original: Record<string, unknown>,
  submission: Pick<DecisionModalSubmission, 'text'>,
): EditedArguments {
  const edited: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    if (field.kind === 'kept') {
      edited[field.name] = original[field.name];
      continue;
    }
    const text = submission.text(field.blockId, EDIT_FIELD_ACTION_ID) ?? '';
    if (field.kind === 'text') {
      edited[field.name] = text;
      continue;
    }
    try {
      edited[field.name] = JSON.parse(text);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      errors[field.blockId] =
        'Not valid JSON: write a JSON value (a number, true, false, null, [...] or {...}).';
    }
  }
  return Object.keys(errors).length > 0
    ? { type: 'errors', errors }
    : { type: 'arguments', arguments: edited };
}
