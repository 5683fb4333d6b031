import { z } from 'zod';
import type { ChatMessage, ToolCall } from '../../agent/chat-model.js';
import type { StoredMessage } from '../records.js';
import { parseJsonColumn } from './parse-json-column.js';

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
