import { z } from 'zod';
import type { ChatMessage, ToolCall } from '../agent/chat-model.js';
import { kvSnapshotSchema } from '../agent/kv.js';
import {
  deliveryProgressSchema,
  type OutboxEntry,
  type OutboxStatus,
  outboxMessageSchema,
} from '../outbox/outbox-message.js';
import type {
  Approval,
  ApprovalCard,
  ApprovalDecision,
  AuditEvent,
  AuditKind,
  Conversation,
  Grant,
  GrantScope,
  StoredMessage,
  Turn,
  TurnStatus,
} from './records.js';
import { approvalDetailsSchema } from './rules/edit-arguments.js';
import { StoredRowInvalidError } from './store-errors.js';

/**
 * Rows as both SQL adapters read them, and the records they become. The two schemas share column names
 * and types (integers for times, flags and counters; JSON as text), so one mapping serves both.
 */

/** Parses a JSON column with its schema; a bad row is an error naming the row, never a silent default. */
export function parseJsonColumn<Schema extends z.ZodType>(
  schema: Schema,
  text: string,
  where: { table: string; key: string },
): z.output<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoredRowInvalidError(
      where.table,
      where.key,
      error instanceof Error ? error.message : 'bad JSON',
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StoredRowInvalidError(where.table, where.key, z.prettifyError(parsed.error));
  return parsed.data;
}

export interface TurnRow {
  seq: number;
  id: string;
  conversation_id: string;
  status: TurnStatus;
  trigger_key: string;
  trigger_ts: string;
  requested_by: string;
  input_text: string;
  lease_owner: string | null;
  lease_expires_at: number | null;
  lease_token: number;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
}

export function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    seq: row.seq,
    conversationId: row.conversation_id,
    status: row.status,
    triggerKey: row.trigger_key,
    triggerTs: row.trigger_ts,
    requestedBy: row.requested_by,
    inputText: row.input_text,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    leaseToken: row.lease_token,
    attempts: row.attempts,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface ConversationRow {
  id: string;
  team_id: string;
  channel_id: string;
  thread_ts: string;
  kv_json: string;
  created_at: number;
}

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    teamId: row.team_id,
    channelId: row.channel_id,
    threadTs: row.thread_ts,
    kv: parseJsonColumn(kvSnapshotSchema, row.kv_json, { table: 'conversations', key: row.id }),
    createdAt: row.created_at,
  };
}

export interface MessageRow {
  seq: number;
  conversation_id: string;
  transcript_id: string;
  turn_id: string;
  role: ChatMessage['role'];
  content: string | null;
  tool_calls_json: string | null;
  tool_call_id: string | null;
}

export const toolCallsSchema = z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() }));

export function toMessage(row: MessageRow): ChatMessage {
  switch (row.role) {
    case 'system':
      return { role: 'system', content: row.content ?? '' };
    case 'user':
      return { role: 'user', content: row.content ?? '' };
    case 'assistant': {
      if (row.tool_calls_json === null) return { role: 'assistant', content: row.content };
      const toolCalls: ToolCall[] = parseJsonColumn(toolCallsSchema, row.tool_calls_json, {
        table: 'messages',
        key: String(row.seq),
      });
      return { role: 'assistant', content: row.content, toolCalls };
    }
    case 'tool':
      return { role: 'tool', toolCallId: row.tool_call_id ?? '', content: row.content ?? '' };
  }
}

export function toStored(row: MessageRow): StoredMessage {
  return { seq: row.seq, transcriptId: row.transcript_id, turnId: row.turn_id, message: toMessage(row) };
}

/** The columns a message is stored in. */
export function messageColumns(message: ChatMessage) {
  return {
    role: message.role,
    content: message.content,
    toolCalls:
      message.role === 'assistant' && message.toolCalls?.length ? JSON.stringify(message.toolCalls) : null,
    toolCallId: message.role === 'tool' ? message.toolCallId : null,
  };
}

/** Transcript ids are the conversation id, or `<conversation id>>…` for a nested agent's transcript. */
export function rootConversationOf(transcriptId: string): string {
  const nested = transcriptId.indexOf('>');
  return nested === -1 ? transcriptId : transcriptId.slice(0, nested);
}

export interface ApprovalRow {
  request_id: string;
  conversation_id: string;
  transcript_id: string;
  tool_call_id: string;
  turn_id: string;
  tool_name: string;
  permission_type: string;
  summary: string;
  details_json: string;
  args_hash: string;
  reason: string | null;
  requested_by: string;
  required_approvals: number;
  created_at: number;
  expires_at: number;
  resolved_at: number | null;
  decision: ApprovalDecision | null;
  decided_by: string | null;
  always_allow: number;
  /** Schema 6: what the person who decided said. */
  decision_reason: string | null;
}

export function toApproval(row: ApprovalRow, approvedBy: readonly string[], cards: readonly ApprovalCard[]) {
  const details = parseJsonColumn(approvalDetailsSchema, row.details_json, {
    table: 'approvals',
    key: row.request_id,
  });
  const approval: Approval = {
    requestId: row.request_id,
    conversationId: row.conversation_id,
    transcriptId: row.transcript_id,
    toolCallId: row.tool_call_id,
    turnId: row.turn_id,
    toolName: row.tool_name,
    permissionType: row.permission_type,
    summary: row.summary,
    arguments: details.arguments,
    argsHash: row.args_hash,
    reason: row.reason,
    requestedBy: row.requested_by,
    requiredApprovals: row.required_approvals,
    approvedBy,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    resolvedAt: row.resolved_at,
    decision: row.decision,
    decidedBy: row.decided_by,
    decisionReason: row.decision_reason,
    always: row.always_allow === 1,
    cards,
    edit: details.edit ?? null,
  };
  return approval;
}

export interface OutboxRow {
  id: number;
  key: string;
  conversation_id: string;
  turn_id: string | null;
  request_id: string | null;
  message_json: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: number;
  claim_owner: string | null;
  claim_token: number;
  claim_expires_at: number | null;
  in_doubt: number;
  progress_json: string;
  last_error: string | null;
  created_at: number;
}

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  const where = { table: 'outbox', key: String(row.id) };
  return {
    id: row.id,
    key: row.key,
    conversationId: row.conversation_id,
    turnId: row.turn_id,
    requestId: row.request_id,
    message: parseJsonColumn(outboxMessageSchema, row.message_json, where),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    claim:
      row.claim_owner === null
        ? null
        : { owner: row.claim_owner, token: row.claim_token, expiresAt: row.claim_expires_at ?? 0 },
    inDoubt: row.in_doubt === 1,
    progress: parseJsonColumn(deliveryProgressSchema, row.progress_json, where),
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

export interface GrantRow {
  id: number;
  scope: GrantScope;
  scope_id: string;
  tool_name: string;
  created_by: string;
  created_at: number;
  source_request_id: string | null;
  match_json: string | null;
  args_hash: string | null;
  expires_at: number | null;
  uses_left: number | null;
}

const grantMatchSchema = z.record(z.string(), z.string());

export const toGrant = (row: GrantRow): Grant => ({
  id: row.id,
  scope: row.scope,
  scopeId: row.scope_id,
  toolName: row.tool_name,
  createdBy: row.created_by,
  createdAt: row.created_at,
  sourceRequestId: row.source_request_id,
  match:
    row.match_json === null
      ? null
      : parseJsonColumn(grantMatchSchema, row.match_json, { table: 'grants', key: String(row.id) }),
  argsHash: row.args_hash,
  expiresAt: row.expires_at,
  usesLeft: row.uses_left,
});

/** The same pattern, whatever order its arguments were named in, so identical grants compare equal. */
export function grantMatchJson(match: Readonly<Record<string, string>> | undefined): string | null {
  if (!match) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(match).sort(([a], [b]) => a.localeCompare(b))));
}

/** What a grant's audit rows say about it. */
export function describeGrant(row: GrantRow) {
  return {
    grantId: row.id,
    scope: row.scope,
    scopeId: row.scope_id,
    tool: row.tool_name,
    ...(row.match_json === null ? {} : { match: JSON.parse(row.match_json) as unknown }),
    ...(row.args_hash === null ? {} : { exactCall: true }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.uses_left === null ? {} : { usesLeft: row.uses_left }),
  };
}

export interface AuditRow {
  id: number;
  at: number;
  actor: string;
  kind: AuditKind;
  approval_id: string | null;
  conversation_id: string | null;
  data_json: string;
  previous_hash: string | null;
  hash: string | null;
}

const dataSchema = z.record(z.string(), z.unknown());

/** Every stored audit row is chained (see `auditRowHash`); one without its hash was written around it. */
export const toAuditEvent = (row: AuditRow): AuditEvent => {
  const where = { table: 'audit_events', key: String(row.id) };
  if (row.hash === null) throw new StoredRowInvalidError(where.table, where.key, 'the row has no hash');
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    kind: row.kind,
    approvalId: row.approval_id,
    conversationId: row.conversation_id,
    data: parseJsonColumn(dataSchema, row.data_json, where),
    previousHash: row.previous_hash,
    hash: row.hash,
  };
};
