import type { Grant } from '../../src/store/records.js';
import type { GrantScopes, Store } from '../../src/store/store.js';
import type { ChatMessage } from '../../src/store/transcript-records.js';

/**
 * A turn's answer as people get it: its last assistant message without tool calls, read with the store's
 * own `turnMessages`, as production reads a turn.
 */
export async function finalAnswerOf(store: Store, turnId: string): Promise<string | undefined> {
  const messages = await store.transcript.turnMessages(turnId);
  const answers = messages.filter((message) => message.role === 'assistant' && !message.toolCalls?.length);
  return answers.at(-1)?.content ?? undefined;
}

/** The oldest usable grant of the whole tool (no pattern, not one exact call) in these scopes. */
export async function wholeToolGrant(
  store: Store,
  toolName: string,
  scopes: GrantScopes,
): Promise<Grant | undefined> {
  const usable = await store.grants.usable(toolName, scopes);
  return usable.find((grant) => grant.match === null && grant.argsHash === null);
}

/** A transcript whole, in order, read with the store's own `recent` (the read a turn makes) and no limit. */
export async function transcriptOf(store: Store, transcriptId: string): Promise<ChatMessage[]> {
  return store.transcript.recent(transcriptId, { maxChars: Number.POSITIVE_INFINITY });
}
