import type { AnyChunk, KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { SlackPort, StreamChunk } from './slack-port.js';

/** What `createSlackWebApi` shares with these calls: its client, error mapping and redaction. */
export interface SlackStreamsDeps {
  readonly client: WebClient;
  readonly call: <Result>(
    method: string,
    work: () => Promise<Result>,
    patienceMs?: number,
    scope?: { readonly alsoSpare?: readonly string[] },
  ) => Promise<Result>;
  readonly redact: (text: string) => string;
  readonly blocks: (value: readonly KnownBlock[] | undefined) => KnownBlock[] | undefined;
}

const tsResponse = z.object({ ts: z.string(), channel: z.string().optional() });
const repliesResponse = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string(),
        user: z.string().optional(),
        bot_id: z.string().optional(),
        text: z.string().optional(),
      }),
    )
    .default([]),
});

type StreamMethods = Pick<
  SlackPort,
  'startStream' | 'appendStream' | 'stopStream' | 'threadMessages' | 'recentMessages'
>;

/** Answer streaming, and reading what people wrote (a thread, a DM's history), redacted like every post. */
export function createSlackStreams({ client, call, redact, blocks }: SlackStreamsDeps): StreamMethods {
  const redactChunk = (chunk: StreamChunk): AnyChunk => {
    switch (chunk.type) {
      case 'markdown_text':
        return { type: 'markdown_text', text: redact(chunk.text) };
      case 'blocks':
        return { type: 'blocks', blocks: blocks(chunk.blocks) ?? [] };
      case 'task_update':
        return {
          ...chunk,
          title: redact(chunk.title),
          ...(chunk.details ? { details: redact(chunk.details) } : {}),
        };
    }
  };
  return {
    async startStream(stream) {
      const result = await call(
        'chat.startStream',
        () =>
          client.chat.startStream({
            channel: stream.channel,
            thread_ts: stream.threadTs,
            recipient_user_id: stream.recipientUserId,
            recipient_team_id: stream.recipientTeamId,
            chunks: stream.chunks.map(redactChunk),
          }),
        undefined,
        // A stream that opens must be closed: it opens only when stopping it is affordable too.
        { alsoSpare: ['chat.stopStream'] },
      );
      const started = tsResponse.parse(result);
      return { ts: started.ts, channel: started.channel ?? stream.channel };
    },
    async appendStream(target) {
      await call('chat.appendStream', () =>
        client.chat.appendStream({
          channel: target.channel,
          ts: target.ts,
          chunks: target.chunks.map(redactChunk),
        }),
      );
    },
    async stopStream(target) {
      await call('chat.stopStream', () =>
        client.chat.stopStream({
          channel: target.channel,
          ts: target.ts,
          ...(target.chunks ? { chunks: target.chunks.map(redactChunk) } : {}),
        }),
      );
    },
    async threadMessages(where) {
      const result = repliesResponse.parse(
        await call('conversations.replies', () =>
          client.conversations.replies({
            channel: where.channel,
            ts: where.threadTs,
            ...(where.beforeTs ? { latest: where.beforeTs, inclusive: false } : {}),
            // One page: a thread longer than this is read from its start, and its newest part kept below.
            limit: 200,
          }),
        ),
      );
      return result.messages
        .filter((message) => message.ts !== where.beforeTs)
        .slice(-where.limit)
        .map((message) => ({
          ts: message.ts,
          user: message.user,
          botId: message.bot_id,
          text: message.text ?? '',
        }));
    },
    async recentMessages(where) {
      const result = repliesResponse.parse(
        await call('conversations.history', () =>
          client.conversations.history({
            channel: where.channel,
            latest: where.beforeTs,
            inclusive: false,
            limit: where.limit,
          }),
        ),
      );
      // Newest first from Slack.
      return result.messages
        .filter((message) => message.ts !== where.beforeTs)
        .slice(0, where.limit)
        .reverse()
        .map((message) => ({
          ts: message.ts,
          user: message.user,
          botId: message.bot_id,
          text: message.text ?? '',
        }));
    },
  };
}
