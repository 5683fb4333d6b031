import { LRUCache } from 'lru-cache';

export { rootConversationOf, toolCallsSchema } from '../row-mappers.js';

import type { StoredMessage } from '../records.js';
import {
  type MessageRow,
  messageJson,
  rootConversationOf,
  toMessage,
  toolResultJson,
} from '../row-mappers.js';
import type { Fence, ToolCallRef, ToolStartResult, TranscriptStore } from '../store.js';
import type { ChatMessage, ToolOutcome } from '../transcript-records.js';
import { prepareFenceCheck, type SqliteContext, translateBusy, writeTransaction } from './sqlite-context.js';

/** Appends a message inside a caller's transaction; returns it as stored. */
export function prepareMessageAppend({ db }: SqliteContext) {
  const insert = db.prepare(
    `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, tool_calls_json, tool_call_id,
       created_at)
     VALUES (@conversationId, @transcriptId, @turnId, @role, @content, @toolCalls, @toolCallId, @now)`,
  );
  return (turnId: string, transcriptId: string, message: ChatMessage, at: number): StoredMessage => {
    const info = insert.run({
      conversationId: rootConversationOf(transcriptId),
      transcriptId,
      turnId,
      role: message.role,
      content: message.content,
      toolCalls: messageJson(message),
      toolCallId: message.role === 'tool' ? message.toolCallId : null,
      now: at,
    });
    return { seq: Number(info.lastInsertRowid), transcriptId, turnId, message };
  };
}

const recentPageSize = 100;

interface TailRow {
  readonly seq: number;
  readonly role: ChatMessage['role'];
  readonly chars: number;
  readonly message: ChatMessage;
}

function rowChars(row: MessageRow): number {
  return (row.content?.length ?? 0) + (row.tool_calls_json?.length ?? 0);
}

function toTailRow(row: MessageRow): TailRow {
  return { seq: row.seq, role: row.role, chars: rowChars(row), message: toMessage(row) };
}

/**
 * The newest rows holding at least `maxChars`, starting at a user message (an exchange's start) so no
 * call is cut from its result; all of them when there is not that much.
 */
function trimTail(rows: readonly TailRow[], maxChars: number): TailRow[] {
  let chars = 0;
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index] as TailRow;
    chars += row.chars;
    if (chars >= maxChars && row.role === 'user') return rows.slice(index);
  }
  return [...rows];
}

function fitTail(rows: readonly TailRow[], maxChars: number): ChatMessage[] {
  return trimTail(rows, maxChars).map((row) => row.message);
}

export function createSqliteTranscript(context: SqliteContext): TranscriptStore {
  const { db, now } = context;
  const checkFence = prepareFenceCheck(context);
  const newerRows = db.prepare<[string, number], MessageRow>(
    'SELECT * FROM messages WHERE transcript_id = ? AND seq > ? ORDER BY seq',
  );
  const tails = new LRUCache<
    string,
    { rows: TailRow[]; maxChars: number; fromStart: boolean; lastSeq: number }
  >({ max: 256 });
  const remember = (
    transcriptId: string,
    rows: TailRow[],
    maxChars: number,
    fromStart: boolean,
    lastSeq: number,
  ) => {
    tails.set(transcriptId, { rows, maxChars, fromStart, lastSeq });
  };
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  // Newest first, a page at a time (messages_by_transcript): the read stops once it has enough.
  const newestPage = db.prepare<[string, number, number], MessageRow>(
    'SELECT * FROM messages WHERE transcript_id = ? AND seq < ? ORDER BY seq DESC LIMIT +?',
  );
  const insert = db.prepare(
    `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, tool_calls_json, tool_call_id,
       created_at)
     VALUES (@conversationId, @transcriptId, @turnId, @role, @content, @toolCalls, @toolCallId, @now)`,
  );
  const resultExists = db.prepare<[string, string], { seq: number }>(
    'SELECT seq FROM messages WHERE transcript_id = ? AND tool_call_id = ?',
  );
  const execution = db.prepare<
    [string, string],
    { status: 'started' | 'finished'; started_at: number; lease_token: number | null }
  >(
    'SELECT status, started_at, lease_token FROM tool_executions WHERE transcript_id = ? AND tool_call_id = ?',
  );
  const startExecution = db.prepare(
    `INSERT INTO tool_executions (transcript_id, tool_call_id, conversation_id, turn_id, tool_name, args_hash,
       status, started_at)
     VALUES (@transcriptId, @toolCallId, @conversationId, @turnId, @toolName, @argsHash, 'started', @now)`,
  );
  const finishExecution = db.prepare(
    `UPDATE tool_executions SET status = 'finished', finished_at = @now
     WHERE transcript_id = @transcriptId AND tool_call_id = @toolCallId`,
  );
  const ofTurn = db.prepare<[string], MessageRow>(
    'SELECT * FROM messages WHERE turn_id = ? AND transcript_id = conversation_id ORDER BY seq',
  );

  const usage = db.prepare<[string], { role: string; n: number }>(
    `SELECT role, count(*) AS n FROM messages WHERE turn_id = ? AND role IN ('assistant', 'tool') GROUP BY role`,
  );

  const appendInside = prepareMessageAppend(context);
  const append = writeTransaction(db, (fence: Fence, transcriptId: string, message: ChatMessage) => {
    checkFence(fence);
    return appendInside(fence.turnId, transcriptId, message, now());
  });

  const startTool = writeTransaction(
    db,
    (fence: Fence, call: ToolCallRef & { toolName: string; argsHash: string }): ToolStartResult => {
      checkFence(fence);
      const existing = execution.get(call.transcriptId, call.toolCallId);
      if (existing) return { type: 'previously-started', startedAt: existing.started_at };
      startExecution.run({ ...call, now: now() });
      return { type: 'started' };
    },
  );

  // Invariant 3: the result is on disk before the turn goes on.
  const recordToolResult = writeTransaction(
    db,
    (fence: Fence, call: ToolCallRef, content: string, outcome: ToolOutcome | undefined) => {
      checkFence(fence);
      // The first result for a call stands; a late duplicate (a racing retry) changes nothing.
      if (resultExists.get(call.transcriptId, call.toolCallId)) return false;
      const at = now();
      insert.run({
        conversationId: call.conversationId,
        transcriptId: call.transcriptId,
        turnId: call.turnId,
        role: 'tool',
        content,
        toolCalls: toolResultJson(outcome),
        toolCallId: call.toolCallId,
        now: at,
      });
      finishExecution.run({ transcriptId: call.transcriptId, toolCallId: call.toolCallId, now: at });
      return true;
    },
  );

  return {
    append: async (fence, transcriptId, message) => append(fence, transcriptId, message),
    startTool: async (fence, call) => startTool(fence, call),
    recordToolResult: async (fence, call, content, outcome) =>
      recordToolResult(fence, call, content, outcome),
    async unfinishedStart(call) {
      const entry = translateBusy(() => execution.get(call.transcriptId, call.toolCallId));
      return entry?.status === 'started' ? entry.started_at : undefined;
    },
    async turnUsage(turnId) {
      const rows = usage.all(turnId);
      const count = (role: string) => rows.find((row) => row.role === role)?.n ?? 0;
      return { modelCalls: count('assistant'), toolCalls: count('tool') };
    },
    async recent(transcriptId, { maxChars }) {
      // A transcript is append-only and a turn reads it once: what was read last time stays valid, and
      // only rows appended since (by any process) are read again.
      const cached = tails.get(transcriptId);
      if (cached && (cached.fromStart || cached.maxChars >= maxChars)) {
        const newer = newerRows.all(transcriptId, cached.lastSeq).map(toTailRow);
        const rows = trimTail([...cached.rows, ...newer], Math.max(maxChars, cached.maxChars));
        const fromStart = cached.fromStart && rows.length === cached.rows.length + newer.length;
        remember(
          transcriptId,
          rows,
          Math.max(maxChars, cached.maxChars),
          fromStart,
          newer.at(-1)?.seq ?? cached.lastSeq,
        );
        return fitTail(rows, maxChars);
      }
      const newestFirst: TailRow[] = [];
      let chars = 0;
      let before = Number.MAX_SAFE_INTEGER;
      let fromStart = false;
      for (;;) {
        const page = newestPage.all(transcriptId, before, recentPageSize);
        for (const row of page) newestFirst.push(toTailRow(row));
        chars += page.reduce((sum, row) => sum + rowChars(row), 0);
        if (page.length < recentPageSize) {
          fromStart = true;
          break;
        }
        if (chars >= maxChars && newestFirst.some((row) => row.role === 'user')) break;
        before = (page.at(-1) as MessageRow).seq;
      }
      const rows = trimTail(newestFirst.reverse(), maxChars);
      remember(
        transcriptId,
        rows,
        maxChars,
        fromStart && rows.length === newestFirst.length,
        rows.at(-1)?.seq ?? 0,
      );
      return fitTail(rows, maxChars);
    },
    async turnMessages(turnId) {
      return translateBusy(() => ofTurn.all(turnId)).map(toMessage);
    },
  };
}
