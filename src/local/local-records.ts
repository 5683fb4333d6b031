import { z } from 'zod';

/** A message in the local workspace, as the page and the Web API see it. */
export interface LocalMessage {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs?: string;
  readonly user: string;
  readonly botId?: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
  /** What an app attached with `metadata` (holdfast: the outbox key a post delivers). */
  readonly metadata?: LocalMetadata;
  /** Set on a message made with `chat.startStream`. */
  readonly stream?: LocalStream;
  readonly edited: boolean;
}

export const localStreamSchema = z.object({
  /** Open for `chat.appendStream` until `chat.stopStream`. */
  open: z.boolean(),
  /** Task cards in the order they first came, each as last updated. */
  tasks: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      status: z.enum(['pending', 'in_progress', 'complete', 'error']),
      details: z.string().optional(),
    }),
  ),
  /** Blocks streamed as `blocks` chunks (holdfast's Stop button). */
  blocks: z.array(z.unknown()),
});
export type LocalStream = z.output<typeof localStreamSchema>;

export const localMetadataSchema = z.object({
  event_type: z.string(),
  event_payload: z.record(z.string(), z.unknown()),
});
export type LocalMetadata = z.output<typeof localMetadataSchema>;

export interface LocalEphemeral {
  readonly id: number;
  readonly channel: string;
  readonly user: string;
  readonly threadTs?: string;
  readonly ts: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
}

export interface LocalReaction {
  readonly channel: string;
  readonly ts: string;
  readonly name: string;
  readonly user: string;
}

/** JSON columns are read leniently: a value that does not fit its shape reads as none, not as an error. */
const blocksJson = z.array(z.unknown());
const parseBlocks = (text: string | null): unknown[] => {
  if (!text) return [];
  const parsed = blocksJson.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : [];
};
const parseStream = (text: string | null): LocalStream | undefined => {
  if (!text) return undefined;
  const parsed = localStreamSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
};
const parseMetadata = (text: string | null): LocalMetadata | undefined => {
  if (!text) return undefined;
  const parsed = localMetadataSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
};

export interface MessageRow {
  channel: string;
  ts: string;
  thread_ts: string | null;
  user: string;
  bot_id: string | null;
  text: string;
  blocks: string | null;
  metadata: string | null;
  stream: string | null;
  edited: number;
}

export interface EphemeralRow {
  id: number;
  channel: string;
  user: string;
  thread_ts: string | null;
  ts: string;
  text: string;
  blocks: string | null;
}

export function toMessage(row: MessageRow): LocalMessage {
  return {
    channel: row.channel,
    ts: row.ts,
    threadTs: row.thread_ts ?? undefined,
    user: row.user,
    botId: row.bot_id ?? undefined,
    text: row.text,
    blocks: parseBlocks(row.blocks),
    ...(row.metadata ? { metadata: parseMetadata(row.metadata) } : {}),
    ...(row.stream ? { stream: parseStream(row.stream) } : {}),
    edited: row.edited === 1,
  };
}

export function toEphemeral(row: EphemeralRow): LocalEphemeral {
  return {
    id: row.id,
    channel: row.channel,
    user: row.user,
    threadTs: row.thread_ts ?? undefined,
    ts: row.ts,
    text: row.text,
    blocks: parseBlocks(row.blocks),
  };
}
