import { z } from 'zod';
import type { ApprovalEdit, RequestDetails } from '../records.js';
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
 * The request's `details_json` document: its `RequestDetails` and, once edited, the edit. Fields set when
 * a request is asked live here rather than in columns, so a new one is a line here and in
 * `RequestDetails`, and no migration or store adapter changes: both stores write this document with
 * `approvalDetailsJson` and read it with `approvalDetailsOf`.
 */
const approvalDetailsSchema = z.object({
  arguments: z.unknown(),
  edit: editSchema.optional(),
}) satisfies z.ZodType<RequestDetails & { edit?: ApprovalEdit }>;

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
