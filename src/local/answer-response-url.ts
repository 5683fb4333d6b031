import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { readBody, sendJson, sendRefusal } from './http-io.js';
import type { LocalStore } from './local-store.js';
import type { RequestGuard } from './request-guard.js';
import { findChannel, findUser, localBot } from './seed.js';
import { safeJson } from './ui-actions.js';

export interface ResponseUrlDeps {
  readonly store: LocalStore;
  /** Tells the open pages that something changed. */
  readonly changed: () => void;
}

const respondSchema = z.object({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
});

/**
 * `POST /respond/<key>/<channel>/<user>`: holdfast answering a command or a click through the response URL
 * it was given, as an ephemeral for that person or (`in_channel`) a message from the bot.
 */
export async function answerResponseUrl(
  deps: ResponseUrlDeps,
  request: IncomingMessage,
  response: ServerResponse,
  checks: RequestGuard,
  url: URL,
): Promise<void> {
  const [key = '', channel = '', user = ''] = url.pathname.slice('/respond/'.length).split('/');
  const verdict = [checks.serverOnly(request), checks.json(request)].find((v) => v.type === 'refuse');
  if (verdict?.type === 'refuse') return sendRefusal(response, verdict);
  if (!checks.isResponseKey(key)) {
    sendJson(response, 403, { ok: false, error: 'invalid_response_url' });
    return;
  }
  const parsed = respondSchema.safeParse(safeJson(await readBody(request)));
  if (!parsed.success || !findChannel(channel) || !findUser(user)) {
    sendJson(response, 400, { ok: false, error: 'invalid_response' });
    return;
  }
  const threadTs = url.searchParams.get('thread_ts') ?? undefined;
  const content = { text: parsed.data.text ?? '', blocks: parsed.data.blocks ?? [] };
  if (parsed.data.response_type === 'in_channel')
    deps.store.addMessage({ channel, threadTs, user: localBot.userId, botId: localBot.botId, ...content });
  else deps.store.addEphemeral({ channel, user, threadTs, ...content });
  deps.changed();
  sendJson(response, 200, { ok: true });
}
