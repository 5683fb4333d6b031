import type { PersonQuestion } from '../../agent/person-question.js';

/** The action id of every input of a question's form; each field has a block of its own. */
export const QUESTION_FIELD_ACTION_ID = 'value';
/** Inputs a form may hold, leaving room for the blocks around them (a view holds at most 100). */
const FIELDS_MAX = 90;
/** Slack's limit on the options of a select, and on a plain text input's value. */
const OPTIONS_MAX = 100;
const TEXT_MAX = 3000;

interface FieldBase {
  /** The property the server asked for. */
  readonly name: string;
  readonly blockId: string;
  /** What the person reads: the property's title, or its name. */
  readonly label: string;
  readonly hint: string | undefined;
  readonly required: boolean;
}

export interface Choice {
  readonly value: string;
  readonly label: string;
}

/** One input of a question's form, derived from one property of the server's flat schema. */
export type QuestionField = FieldBase &
  (
    | {
        readonly kind: 'text';
        readonly initial: string | undefined;
        readonly minLength: number | undefined;
        readonly maxLength: number | undefined;
        readonly multiline: boolean;
      }
    | {
        readonly kind: 'number';
        readonly integer: boolean;
        readonly initial: number | undefined;
        readonly minimum: number | undefined;
        readonly maximum: number | undefined;
      }
    | { readonly kind: 'yes-no'; readonly initial: boolean | undefined }
    | { readonly kind: 'choice'; readonly choices: readonly Choice[]; readonly initial: string | undefined }
    | { readonly kind: 'choices'; readonly choices: readonly Choice[]; readonly initial: readonly string[] }
  );

/**
 * The form's inputs for a question, in the schema's order; undefined when Slack cannot ask it (more
 * fields or options than a view holds, a property of a kind the protocol does not allow). Deterministic,
 * so the submission is read back against the same fields, derived again from the stored question.
 */
export function questionFields(question: PersonQuestion & { kind: 'form' }): QuestionField[] | undefined {
  const entries = Object.entries(question.schema.properties);
  if (entries.length > FIELDS_MAX) return undefined;
  const required = new Set(question.schema.required ?? []);
  const fields: QuestionField[] = [];
  for (const [index, [name, property]] of entries.entries()) {
    const field = fieldOf(name, `holdfast.question.${index}`, property, required.has(name));
    if (!field) return undefined;
    fields.push(field);
  }
  return fields;
}

function fieldOf(
  name: string,
  blockId: string,
  property: Readonly<Record<string, unknown>>,
  required: boolean,
): QuestionField | undefined {
  const base: FieldBase = {
    name,
    blockId,
    label: stringOr(property.title) ?? name,
    hint: stringOr(property.description),
    required,
  };
  const choices = choicesOf(property);
  if (choices === null) return undefined;
  switch (property.type) {
    case 'string':
      if (choices) return { ...base, kind: 'choice', choices, initial: stringOr(property.default) };
      return {
        ...base,
        kind: 'text',
        initial: stringOr(property.default),
        minLength: numberOr(property.minLength),
        maxLength: Math.min(numberOr(property.maxLength) ?? TEXT_MAX, TEXT_MAX),
        multiline: (numberOr(property.maxLength) ?? TEXT_MAX) > 150,
      };
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: 'number',
        integer: property.type === 'integer',
        initial: numberOr(property.default),
        minimum: numberOr(property.minimum),
        maximum: numberOr(property.maximum),
      };
    case 'boolean':
      return {
        ...base,
        kind: 'yes-no',
        initial: typeof property.default === 'boolean' ? property.default : undefined,
      };
    case 'array': {
      const items = choicesOf(recordOr(property.items) ?? {});
      if (!items) return undefined;
      const initial = Array.isArray(property.default)
        ? property.default.filter((value) => typeof value === 'string')
        : [];
      return { ...base, kind: 'choices', choices: items, initial };
    }
    default:
      return undefined;
  }
}

/** A property's options (`enum`, `oneOf` or `anyOf` of titled constants); null when there are too many. */
function choicesOf(property: Readonly<Record<string, unknown>>): Choice[] | undefined | null {
  let choices: Choice[] | undefined;
  if (Array.isArray(property.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    choices = property.enum
      .filter((value): value is string => typeof value === 'string')
      .map((value, index) => ({ value, label: stringOr(names[index]) ?? value }));
  }
  const titled = Array.isArray(property.oneOf)
    ? property.oneOf
    : Array.isArray(property.anyOf)
      ? property.anyOf
      : undefined;
  if (titled) {
    choices = titled.flatMap((option) => {
      const record = recordOr(option);
      const value = stringOr(record?.const);
      return value === undefined ? [] : [{ value, label: stringOr(record?.title) ?? value }];
    });
  }
  if (choices && (choices.length === 0 || choices.length > OPTIONS_MAX)) return null;
  return choices;
}

/** What a submission said for one field, as Slack reports its input. */
export interface FieldInput {
  readonly value?: string | null;
  readonly selected_option?: { readonly value: string } | null;
  readonly selected_options?: readonly { readonly value: string }[] | null;
}

export type ReadAnswer =
  | { readonly type: 'values'; readonly values: Record<string, unknown> }
  /** Shown beside the inputs, with the form left open (`response_action: errors`). */
  | { readonly type: 'errors'; readonly errors: Record<string, string> };

/** The values of a submitted form, typed as the schema asks; a field left empty is left out. */
export function readQuestionAnswer(
  fields: readonly QuestionField[],
  inputOf: (blockId: string) => FieldInput | undefined,
): ReadAnswer {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const input = inputOf(field.blockId);
    switch (field.kind) {
      case 'text': {
        const text = input?.value ?? '';
        if (text !== '') values[field.name] = text;
        break;
      }
      case 'number': {
        const text = (input?.value ?? '').trim();
        if (text === '') break;
        const number = Number(text);
        if (!Number.isFinite(number) || (field.integer && !Number.isInteger(number)))
          errors[field.blockId] = field.integer ? 'Write a whole number.' : 'Write a number.';
        else values[field.name] = number;
        break;
      }
      case 'yes-no': {
        const chosen = input?.selected_option?.value;
        if (chosen === 'yes' || chosen === 'no') values[field.name] = chosen === 'yes';
        break;
      }
      case 'choice': {
        const chosen = input?.selected_option?.value;
        if (chosen !== undefined) values[field.name] = chosen;
        break;
      }
      case 'choices':
        values[field.name] = (input?.selected_options ?? []).map((option) => option.value);
        break;
    }
  }
  return Object.keys(errors).length > 0 ? { type: 'errors', errors } : { type: 'values', values };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function recordOr(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
