import type { LocalMetadata } from './local-store.js';

/** A stored message as Slack's API and events show it; metadata only when the caller asked for it. */
export function wireMessage(
  message: {
    channel: string;
    ts: string;
    threadTs?: string;
    user: string;
    botId?: string;
    text: string;
    blocks: readonly unknown[];
    metadata?: LocalMetadata;
  },
  options: { withMetadata?: boolean } = {},
): Record<string, unknown> {
  return {
    type: 'message',
    ...(message.botId ? { subtype: 'bot_message', bot_id: message.botId } : {}),
    user: message.user,
    text: message.text,
    ts: message.ts,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    ...(options.withMetadata && message.metadata ? { metadata: message.metadata } : {}),
  };
}
