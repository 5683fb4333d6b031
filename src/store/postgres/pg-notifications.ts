import pg from 'pg';
import { z } from 'zod';
import type { WorkNotice, WorkNotices } from '../store.js';

/** The channel a replica announces on when a turn leaves its hands (released, completed, failed). */
export const workChannel = 'holdfast_work';

const noticeSchema = z.object({
  conversationId: z.string(),
  turnId: z.string(),
  event: z.enum(['released', 'finished']),
});

/**
 * LISTEN on one dedicated connection (a pooled one would be handed to a transaction), from the moment the
 * store opens; `ready` resolves once the first attempt is over. A lost connection is opened again after
 * `retryMs`; notices sent meanwhile are missed, which the sweep makes up for.
 */
export function listenForWork(
  config: pg.ClientConfig,
  options: { onError?: (error: unknown) => void; retryMs?: number } = {},
): WorkNotices & { readonly ready: Promise<void>; close(): Promise<void> } {
  const listeners = new Set<(notice: WorkNotice) => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed || client) return;
    const next = new pg.Client(config);
    next.on('notification', (message) => {
      if (message.channel !== workChannel || !message.payload) return;
      let value: unknown;
      try {
        value = JSON.parse(message.payload);
      } catch {
        return;
      }
      const notice = noticeSchema.safeParse(value);
      if (!notice.success) return;
      for (const listener of listeners) listener(notice.data);
    });
    next.on('error', (error) => {
      options.onError?.(error);
      reconnect(next);
    });
    next.on('end', () => reconnect(next));
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${workChannel}`);
    } catch (error) {
      options.onError?.(error);
      reconnect(next);
    }
  };
  const reconnect = (dead: pg.Client) => {
    if (client !== dead) return;
    client = undefined;
    dead.end().catch(() => undefined);
    if (closed) return;
    timer = setTimeout(() => void connect(), options.retryMs ?? 1_000);
    timer.unref();
  };

  // Listening from the start: a notice sent once the store is open reaches this process.
  const ready = connect();
  return {
    ready,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
