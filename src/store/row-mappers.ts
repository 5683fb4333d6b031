/**
 * Rows as both SQL adapters read them, and the records they become. The two schemas share column names
 * and types (integers for times, flags and counters; JSON as text), so one mapping serves both.
 */

export {
  type ApprovalRow,
  approvalCardsSchema,
  approvalVotesSchema,
  toApproval,
} from './rows/approval-row.js';
export { type AuditRow, toAuditEvent } from './rows/audit-row.js';
export { type ConversationRow, toConversation } from './rows/conversation-row.js';
export { describeGrant, type GrantRow, grantMatchJson, toGrant } from './rows/grant-row.js';
export {
  type MessageRow,
  messageColumns,
  messageJson,
  rootConversationOf,
  toMessage,
  toolCallsSchema,
  toolResultJson,
  toStored,
} from './rows/message-row.js';
export { type OutboxRow, toOutboxEntry } from './rows/outbox-row.js';
export { parseJsonColumn } from './rows/parse-json-column.js';
export { type TurnRow, toTurn } from './rows/turn-row.js';
