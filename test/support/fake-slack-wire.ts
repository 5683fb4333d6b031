/**
 * How the fake workspace reads a Web API call's parameters into its messages, and writes a message back
 * in the shape Slack's methods return it.
 */
import type { FakeIdentity, FakeMessage, FakeMetadata } from './fake-slack-workspace.js';

/** A parameter sent as a string; anything else counts as not sent. */
export function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  return typeof params[name] === 'string' ? (params[name] as string) : undefined;
}

export function wireMessage(
  message: FakeMessage,
  identity: FakeIdentity,
  withMetadata: boolean,
): Record<string, unknown> {
  if (message.user) {
    return {
      type: 'message',
      user: message.user,
      text: message.text,
      ts: message.ts,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    };
  }
  return {
    type: 'message',
    subtype: 'bot_message',
    user: identity.botUserId,
    bot_id: identity.botId,
    text: message.text,
    ts: message.ts,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    ...(withMetadata && message.metadata ? { metadata: message.metadata } : {}),
  };
}

/** A stream's text grows by its markdown chunks; its tasks take the latest state of each id. */
export function withChunks(message: FakeMessage, chunks: unknown): FakeMessage {
  let text = message.text;
  const tasks = { ...message.tasks };
  for (const chunk of Array.isArray(chunks) ? (chunks as Record<string, unknown>[]) : []) {
    if (chunk.type === 'markdown_text' && typeof chunk.text === 'string') text += chunk.text;
    if (chunk.type === 'task_update' && typeof chunk.id === 'string')
      tasks[chunk.id] = { title: String(chunk.title ?? ''), status: String(chunk.status ?? '') };
  }
  return { ...message, text, tasks };
}

export function blocksOf(params: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(params.blocks) ? (params.blocks as Record<string, unknown>[]) : [];
}

export function metadataOf(value: unknown): FakeMetadata | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { event_type: eventType, event_payload: payload } = value as Record<string, unknown>;
  if (typeof eventType !== 'string') return undefined;
  return {
    event_type: eventType,
    event_payload:
      typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {},
  };
}
