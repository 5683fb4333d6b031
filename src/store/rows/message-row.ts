import { z } from 'zod';
import type { StoredMessage } from '../records.js';
import type { ChatMessage, ToolCall, ToolOutcome } from '../transcript-records.js';
import { parseJsonColumn } from './parse-json-column.js';

export interface MessageRow {
  seq: number;
  conversation_id: string;
  transcript_id: string;
  turn_id: string;
  role: ChatMessage['role'];
  content: string | null;
  /** An assistant message's calls; on a tool result, how the call ended (see `messageJson`). */
  tool_calls_json: string | null;
  tool_call_id: string | null;
}

export const toolCallsSchema = z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() }));

/** A tool result's outcome as it is kept: `{"outcome": …}`, so the column can carry more later. */
const toolResultSchema = z.object({
  outcome: z.discriminatedUnion('type', [
    z.object({ type: z.literal('succeeded') }),
    z.object({
      type: z.literal('failed'),
      exitCode: z.number().int().optional(),
      error: z.string().optional(),
    }),
    z.object({ type: z.literal('stopped'), by: z.string().optional() }),
    z.object({ type: z.literal('interrupted') }),
    z.object({ type: z.literal('denied'), by: z.string().optional() }),
    z.object({ type: z.literal('expired') }),
    z.object({ type: z.literal('refused'), by: z.enum(['policy', 'tool', 'holdfast', 'invalid-call']) }),
  ]) satisfies z.ZodType<ToolOutcome>,
});

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
    case 'tool': {
      const message = {
        role: 'tool' as const,
        toolCallId: row.tool_call_id ?? '',
        content: row.content ?? '',
      };
      // Results stored before outcomes were kept have none.
      if (row.tool_calls_json === null) return message;
      const { outcome } = parseJsonColumn(toolResultSchema, row.tool_calls_json, {
        table: 'messages',
        key: String(row.seq),
      });
      return { ...message, outcome };
    }
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
    toolCalls: messageJson(message),
    toolCallId: message.role === 'tool' ? message.toolCallId : null,
  };
}

/**
 * The `tool_calls_json` column: an assistant message's calls, or a tool result's outcome. A result row
 * never has calls, so its outcome rides in the same JSON column with no change to either schema; every
 * query that reads calls from it filters on `role = 'assistant'`.
 */
export function messageJson(message: ChatMessage): string | null {
  if (message.role === 'assistant')
    return message.toolCalls?.length ? JSON.stringify(message.toolCalls) : null;
  if (message.role === 'tool') return toolResultJson(message.outcome);
  return null;
}

export function toolResultJson(outcome: ToolOutcome | undefined): string | null {
  return outcome ? JSON.stringify({ outcome }) : null;
}

/** Transcript ids are the conversation id, or `<conversation id>>…` for a nested agent's transcript. */
export function rootConversationOf(transcriptId: string): string {
  const nested = transcriptId.indexOf('>');
  return nested === -1 ? transcriptId : transcriptId.slice(0, nested);
}
