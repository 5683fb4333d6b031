import { z } from 'zod';
import type { ApprovalEdit } from '../records.js';
import { parseJsonColumn } from './parse-json-column.js';

const editSchema = z.object({
  proposedArguments: z.unknown(),
  proposedArgsHash: z.string(),
  argumentsText: z.string(),
  by: z.string(),
  at: z.number(),
  count: z.number().int().positive(),
});

/**
 * What a request keeps about how it was asked beyond its columns, stored as one JSON document
 * (`details_json`) with the edit once there is one. A field set when a request is asked is a line here:
 * `Approval` and `NewApproval` take it from this schema, and both stores write the document with
 * `approvalDetailsJson` and read it with `approvalDetailsOf`, so no migration and no adapter changes.
 */
const requestDetailsSchema = z.object({
  /** The exact arguments, as parsed (the edited ones, once an approver edited them). */
  arguments: z.unknown(),
});

export type RequestDetails = z.output<typeof requestDetailsSchema>;

const approvalDetailsSchema = requestDetailsSchema.extend({ edit: editSchema.optional() });

/** The document to store for a request: every field the schema knows, taken from the request. */
export function approvalDetailsJson(
  request: RequestDetails & { readonly edit?: ApprovalEdit | null },
): string {
  const fields: Record<string, unknown> = { ...request, edit: request.edit ?? undefined };
  const document: Record<string, unknown> = {};
  for (const key of Object.keys(approvalDetailsSchema.shape)) document[key] = fields[key];
  // JSON leaves out what is undefined: a request not yet edited has no `edit`.
  return JSON.stringify(document);
}

/** The document's fields as the request's: `edit` is null until an approver edits. */
export function approvalDetailsOf(row: {
  readonly request_id: string;
  readonly details_json: string;
}): RequestDetails & { readonly edit: ApprovalEdit | null } {
  const { edit, ...details } = parseJsonColumn(approvalDetailsSchema, row.details_json, {
    table: 'approvals',
    key: row.request_id,
  });
  return { ...details, edit: edit ?? null };
}
