import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { Approval } from '../store/records.js';
import { canonicalJson } from './hash-arguments.js';

/**
 * The permission type of a question a running tool puts to the person who started the turn (an MCP
 * server's elicitation). It is decided like any request, through its card, but only that person may
 * answer it, and what they answer is the request's (edited) arguments.
 */
export const personQuestionType = 'person-question';

/** One field of a question's form: a flat, primitive JSON schema (MCP's elicitation subset). */
export type QuestionField = Readonly<Record<string, unknown>>;

const formSchema = z.object({
  type: z.literal('object'),
  properties: z.record(z.string(), z.record(z.string(), z.unknown())),
  required: z.array(z.string()).optional(),
});

const questionSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('form'),
    /** Who asks, as people know it (an MCP server's configured name). */
    askedBy: z.string(),
    message: z.string(),
    schema: formSchema,
  }),
  z.object({
    kind: z.literal('link'),
    askedBy: z.string(),
    message: z.string(),
    /** A page the person must visit themselves (a sign-in, a payment): shown only to them. */
    url: z.string().url(),
  }),
]);

/** What a tool asks its requester, as stored with the request (its `arguments` before the answer). */
export type PersonQuestion = z.infer<typeof questionSchema>;

export type PersonAnswer =
  /** Sent the form (its values), or, for a link, said they had finished there. */
  | { readonly type: 'answered'; readonly content: Readonly<Record<string, unknown>> }
  | { readonly type: 'declined' }
  /** Nobody answered before the request expired. */
  | { readonly type: 'unanswered' };

/**
 * Control flow, not a failure: a tool's call cannot go on without its requester's answer. The tool
 * runtime catches it before any broad `catch` (as it does `ApprovalPending`, invariant 2), writes the
 * question as a request and suspends the turn; the answered call runs again on resume and finds its
 * answer stored (`ToolContext.answerTo`), with no model call in between (invariant 4).
 */
export class PersonInputNeeded {
  readonly name = 'PersonInputNeeded';

  constructor(
    /** The question's place among those this call asked, from 0: a call may ask more than once. */
    readonly ordinal: number,
    readonly question: PersonQuestion,
  ) {}
}

/**
 * Where a call's question is kept: a transcript of its own beside the call (a transcript holds one
 * request per call id), under the question's place among the call's questions and, for a form, what it
 * asks: a call that asks something else when it runs again is asked that anew, never given an answer to
 * another question. A link is kept by its place alone, since a server may make a new link each time.
 */
export function questionSite(
  transcriptId: string,
  toolCallId: string,
  ordinal: number,
  question: PersonQuestion,
): { readonly transcriptId: string; readonly toolCallId: string } {
  const asked = question.kind === 'link' ? 'link' : questionHash(question).slice(0, 16);
  return { transcriptId: `${transcriptId}>${toolCallId}?`, toolCallId: `question-${ordinal}-${asked}` };
}

/** The hash a question's request binds (its answer's replaces it): the question, key order aside. */
export function questionHash(question: PersonQuestion): string {
  return createHash('sha256').update(canonicalJson(question)).digest('hex');
}

export function isQuestion(approval: Pick<Approval, 'permissionType'>): boolean {
  return approval.permissionType === personQuestionType;
}

/** The question a request asks, as it was asked (an answered one keeps it as the proposal it replaced). */
export function questionOf(approval: Approval): PersonQuestion | undefined {
  if (!isQuestion(approval)) return undefined;
  const parsed = questionSchema.safeParse(
    approval.edit ? approval.edit.proposedArguments : approval.arguments,
  );
  return parsed.success ? parsed.data : undefined;
}

/** What the person answered, from their decided request; undefined while it waits. */
export function answerFrom(approval: Approval): PersonAnswer | undefined {
  switch (approval.decision) {
    case null:
      return undefined;
    case 'denied':
      return { type: 'declined' };
    case 'expired':
      return { type: 'unanswered' };
    case 'allowed':
      return {
        type: 'answered',
        content: approval.edit && isRecord(approval.arguments) ? approval.arguments : {},
      };
  }
}

export type AnswerCheck =
  | { readonly type: 'valid'; readonly content: Record<string, unknown> }
  | { readonly type: 'invalid'; readonly problems: ReadonlyMap<string, string> };

/**
 * A form's values checked against the question's schema (required fields, types, lengths, ranges,
 * choices), with each problem beside the field it concerns. Undeclared fields are dropped: the server
 * gets only what it asked for.
 */
export function checkAnswer(
  question: PersonQuestion & { kind: 'form' },
  values: Record<string, unknown>,
): AnswerCheck {
  const content: Record<string, unknown> = {};
  for (const name of Object.keys(question.schema.properties)) {
    if (values[name] !== undefined) content[name] = values[name];
  }
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  const validate = ajv.compile(question.schema);
  if (validate(content)) return { type: 'valid', content };
  const problems = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    const field =
      error.keyword === 'required'
        ? String((error.params as { missingProperty?: unknown }).missingProperty ?? '')
        : (error.instancePath.split('/')[1] ?? '');
    if (!problems.has(field)) problems.set(field, sentenceOf(error.keyword, error.message));
  }
  return { type: 'invalid', problems };
}

function sentenceOf(keyword: string, message: string | undefined): string {
  if (keyword === 'required') return 'This is required.';
  const said = message ?? 'is not valid';
  return `This ${said}.`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
