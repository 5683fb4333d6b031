/** A conversation is a Slack thread: `team:channel:thread_ts`, the same in every process. */
export function conversationId(key: { teamId: string; channelId: string; threadTs: string }): string {
  return `${key.teamId}:${key.channelId}:${key.threadTs}`;
}
