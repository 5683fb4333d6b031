/** Where a conversation lives in Slack: a workspace, a channel and the thread's first message. */
export interface ThreadKey {
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
}

/** A conversation is a Slack thread: `team:channel:thread_ts`, the same in every process. */
export function conversationId(key: ThreadKey): string {
  return `${key.teamId}:${key.channelId}:${key.threadTs}`;
}

/**
 * The thread a conversation id names, read back from the id: everything posted to a thread (each card,
 * answer chunk, status) needs only where to post, and reading the conversation's row for it was most of
 * the reads an answer made. Slack's ids and timestamps never contain a colon; anything else is not an id
 * `conversationId` made, and gets undefined.
 */
export function threadOf(id: string): ThreadKey | undefined {
  const parts = id.split(':');
  if (parts.length !== 3) return undefined;
  const [teamId, channelId, threadTs] = parts as [string, string, string];
  if (teamId === '' || channelId === '' || threadTs === '') return undefined;
  return { teamId, channelId, threadTs };
}
