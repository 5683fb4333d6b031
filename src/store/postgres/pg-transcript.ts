import { type MessageRow, toMessage, toolResultJson } from '../row-mappers.js';
import type { TranscriptStore } from '../store.js';
import type { ChatMessage } from '../transcript-records.js';
import { checkFence, type PgContext, read, transaction } from './pg-context.js';
import { appendInside } from './pg-messages.js';

const pageSize = 100;

function rowChars(row: MessageRow): number {
  return (row.content?.length ?? 0) + (row.tool_calls_json?.length ?? 0);
}

/**
 * The newest rows holding at least `maxChars`, starting at a user message (an exchange's start) so no
 * call is cut from its result; all of them when there is not that much.
 */
function trimTail(rows: readonly MessageRow[], maxChars: number): MessageRow[] {
  let chars = 0;
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index] as MessageRow;
    chars += rowChars(row);
    if (chars >= maxChars && row.role === 'user') return rows.slice(index);
  }
  return [...rows];
}

export function createPgTranscript(context: PgContext): TranscriptStore {
  return {
    async recent(transcriptId, { maxChars }): Promise<ChatMessage[]> {
      // Newest first, a page at a time (messages_by_transcript): the read stops once it has enough.
      const newestFirst: MessageRow[] = [];
      let chars = 0;
      let before = Number.MAX_SAFE_INTEGER;
      for (;;) {
        const page = await read<MessageRow>(
          context,
          'SELECT * FROM messages WHERE transcript_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
          [transcriptId, before, pageSize],
        );
        newestFirst.push(...page);
        chars += page.reduce((sum, row) => sum + rowChars(row), 0);
        if (page.length < pageSize) break;
        if (chars >= maxChars && newestFirst.some((row) => row.role === 'user')) break;
        before = (page.at(-1) as MessageRow).seq;
      }
      return trimTail(newestFirst.reverse(), maxChars).map(toMessage);
    },
    append: (fence, transcriptId, message) =>
      transaction(context, async (tx) => {
        await checkFence(tx, fence);
        return appendInside(tx, fence.turnId, transcriptId, message);
      }),
    startTool: (fence, call) =>
      transaction(context, async (tx) => {
        await checkFence(tx, fence);
        const started = await tx.run(
          `INSERT INTO tool_executions (transcript_id, tool_call_id, conversation_id, turn_id, tool_name, args_hash,
             status, started_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'started', $7)
           ON CONFLICT (transcript_id, tool_call_id) DO NOTHING`,
          [
            call.transcriptId,
            call.toolCallId,
            call.conversationId,
            call.turnId,
            call.toolName,
            call.argsHash,
            tx.now,
          ],
        );
        if (started === 1) return { type: 'started' as const };
        const existing = await tx.one<{ started_at: number }>(
          'SELECT started_at FROM tool_executions WHERE transcript_id = $1 AND tool_call_id = $2',
          [call.transcriptId, call.toolCallId],
        );
        return { type: 'previously-started' as const, startedAt: existing?.started_at ?? tx.now };
      }),
    recordToolResult: (fence, call, content, outcome) =>
      transaction(context, async (tx) => {
        await checkFence(tx, fence);
        // The first result for a call stands; a late duplicate (a racing retry) changes nothing. The ledger
        // entry turns finished in the same statement, only when the result was written.
        const written = await tx.one<{ n: number }>(
          `WITH inserted AS (
             INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, tool_call_id, created_at,
               tool_calls_json)
             VALUES ($1, $2, $3, 'tool', $4, $5, $6, $7)
             ON CONFLICT (transcript_id, tool_call_id) WHERE tool_call_id IS NOT NULL DO NOTHING
             RETURNING 1),
           finished AS (
             UPDATE tool_executions SET status = 'finished', finished_at = $6
             WHERE transcript_id = $2 AND tool_call_id = $5 AND EXISTS (SELECT 1 FROM inserted))
           SELECT count(*)::int AS n FROM inserted`,
          [
            call.conversationId,
            call.transcriptId,
            call.turnId,
            content,
            call.toolCallId,
            tx.now,
            toolResultJson(outcome),
          ],
        );
        return written?.n === 1;
      }),
    async unfinishedStart(call) {
      const [row] = await read<{ started_at: number }>(
        context,
        `SELECT started_at FROM tool_executions
         WHERE transcript_id = $1 AND tool_call_id = $2 AND status = 'started'`,
        [call.transcriptId, call.toolCallId],
      );
      return row?.started_at;
    },
    async turnMessages(turnId) {
      const rows = await read<MessageRow>(
        context,
        'SELECT * FROM messages WHERE turn_id = $1 AND transcript_id = conversation_id ORDER BY seq',
        [turnId],
      );
      return rows.map(toMessage);
    },
    async turnUsage(turnId) {
      const rows = await read<{ role: string; n: number }>(
        context,
        `SELECT role, count(*)::int AS n FROM messages WHERE turn_id = $1 AND role IN ('assistant', 'tool')
         GROUP BY role`,
        [turnId],
      );
      const count = (role: string) => rows.find((row) => row.role === role)?.n ?? 0;
      return { modelCalls: count('assistant'), toolCalls: count('tool') };
    },
  };
}
