import { z } from 'zod';
import type { LocalStore, LocalStream } from './local-store.js';
import { findChannel, localBot, localTeam, resolveChannel } from './seed.js';

type Params = Record<string, unknown>;
type Response = Record<string, unknown>;

/** Slack's limit on `markdown_text`, as a field and as a chunk. */
const markdownLimit = 12_000;

const chunkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('markdown_text'), text: z.string().max(markdownLimit) }),
  z.object({
    type: z.literal('task_update'),
    id: z.string().min(1),
    title: z.string(),
    status: z.enum(['pending', 'in_progress', 'complete', 'error']),
    details: z.string().optional(),
    output: z.string().optional(),
  }),
  z.object({ type: z.literal('plan_update'), title: z.string() }),
  z.object({
    type: z.literal('blocks'),
    blocks: z.array(z.object({ type: z.string() }).passthrough()).max(50),
  }),
]);
const chunksSchema = z.array(chunkSchema).max(100);
type Chunk = z.output<typeof chunkSchema>;

/**
 * `chat.startStream`, `chat.appendStream` and `chat.stopStream` as Slack answers them: a message that grows
 * by its chunks (markdown text, task cards that keep the latest state of each id, blocks such as a Stop
 * button) while it is open, and refuses more once stopped. The arguments are checked as Slack checks them.
 */
export function answerStreamCall(store: LocalStore, method: string, params: Params): Response {
  const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
  const channel = resolveChannel(text('channel') ?? '');
  if (!channel) return { ok: false, error: 'channel_not_found' };
  const markdown = text('markdown_text');
  if (markdown !== undefined && markdown.length > markdownLimit) return { ok: false, error: 'msg_too_long' };
  const parsed = params.chunks === undefined ? undefined : chunksSchema.safeParse(params.chunks);
  if (parsed && !parsed.success) return { ok: false, error: 'invalid_chunks' };
  const chunks: Chunk[] = [
    ...(markdown ? [{ type: 'markdown_text' as const, text: markdown }] : []),
    ...(parsed?.data ?? []),
  ];

  if (method === 'chat.startStream') {
    const threadTs = text('thread_ts');
    if (!threadTs) return { ok: false, error: 'invalid_arguments' };
    if (!store.message(channel.id, threadTs)) return { ok: false, error: 'thread_not_found' };
    // Outside a DM Slack streams to one person, who must be named with their team.
    if (findChannel(channel.id)?.type !== 'im') {
      if (!text('recipient_user_id')) return { ok: false, error: 'missing_recipient_user_id' };
      if (text('recipient_team_id') !== localTeam.id)
        return { ok: false, error: 'missing_recipient_team_id' };
    }
    const grown = grow({ text: '', stream: { open: true, tasks: [], blocks: [] } }, chunks);
    const message = store.addMessage({
      user: localBot.userId,
      botId: localBot.botId,
      channel: channel.id,
      threadTs,
      text: grown.text,
      blocks: [],
      stream: grown.stream,
    });
    return { ok: true, channel: channel.id, ts: message.ts };
  }

  const ts = text('ts');
  if (!ts) return { ok: false, error: 'invalid_arguments' };
  const existing = store.message(channel.id, ts);
  if (!existing) return { ok: false, error: 'message_not_found' };
  if (!existing.stream?.open) return { ok: false, error: 'message_not_in_streaming_state' };
  if (method === 'chat.appendStream' && chunks.length === 0) return { ok: false, error: 'no_text' };
  const grown = grow({ text: existing.text, stream: existing.stream }, chunks);
  store.updateStream(channel.id, ts, {
    text: grown.text,
    stream: { ...grown.stream, open: method === 'chat.appendStream' },
  });
  return { ok: true, channel: channel.id, ts };
}

function grow(
  message: { text: string; stream: LocalStream },
  chunks: readonly Chunk[],
): { text: string; stream: LocalStream } {
  let text = message.text;
  const tasks = [...message.stream.tasks];
  const blocks = [...message.stream.blocks];
  for (const chunk of chunks) {
    if (chunk.type === 'markdown_text') text += chunk.text;
    if (chunk.type === 'blocks') blocks.push(...chunk.blocks);
    if (chunk.type === 'task_update') {
      const task = {
        id: chunk.id,
        title: chunk.title,
        status: chunk.status,
        ...(chunk.details ? { details: chunk.details } : {}),
      };
      const at = tasks.findIndex((candidate) => candidate.id === chunk.id);
      if (at >= 0) tasks[at] = task;
      else tasks.push(task);
    }
  }
  return { text, stream: { ...message.stream, tasks, blocks } };
}
