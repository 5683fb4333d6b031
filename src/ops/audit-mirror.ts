import type { Logger } from 'pino';
import type { Store } from '../store/store.js';

export interface AuditMirrorOptions {
  readonly store: Store;
  readonly logger: Logger;
  /** Rows recorded before this time (epoch ms) are history, not news: they are not mirrored. */
  readonly since: number;
}

/**
 * Mirrors audit rows to the log stream as they appear (`HOLDFAST_AUDIT_LOG=1`), oldest first, each once
 * per process. Rows are read back from the store rather than caught on their way in, since several writes
 * insert them (decisions, grants, the outbox); `kick` after a write, and a timer, read what is new. A row
 * another process wrote is mirrored too: with several processes, deduplicate on `audit.hash`.
 */
export class AuditMirror {
  readonly #options: AuditMirrorOptions;
  #afterId = 0;
  #reading: Promise<void> = Promise.resolve();
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: AuditMirrorOptions) {
    this.#options = options;
  }

  /** Reads what is new; calls made while a read runs are folded into one more read. */
  kick(): Promise<void> {
    if (this.#again) return this.#reading;
    this.#again = true;
    this.#reading = this.#reading.then(async () => {
      this.#again = false;
      await this.#readNew().catch((error: unknown) => {
        this.#options.logger.warn({ err: error }, 'could not mirror the audit trail to the log; retrying');
      });
    });
    return this.#reading;
  }

  start(intervalMs: number): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.kick(), intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and mirrors what the last writes left. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.kick();
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const since = this.#afterId === 0 ? this.#options.since : undefined;
      const rows = await this.#options.store.audit.list({ afterId: this.#afterId, since, limit: 500 });
      for (const row of rows) {
        this.#options.logger.info(
          {
            audit: {
              id: row.id,
              at: new Date(row.at).toISOString(),
              kind: row.kind,
              actor: row.actor,
              requestId: row.approvalId,
              conversationId: row.conversationId,
              data: row.data,
              hash: row.hash,
            },
          },
          `audit ${row.kind}`,
        );
        this.#afterId = row.id;
      }
      if (rows.length < 500) return;
    }
  }
}
