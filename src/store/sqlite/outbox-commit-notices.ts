import type Database from 'better-sqlite3';

/**
 * Tells the outbox worker, once a commit is made, which conversations it wrote outbox rows for, so this
 * process claims and sends them at once (rows are written unclaimed; the sweep is the guarantee). Rows of
 * a write whose savepoint rolled back may be told too; the worker then finds nothing new, which costs a read.
 */
class OutboxCommitNotices {
  #listener: ((conversationId: string) => void) | undefined;
  #written = new Set<string>();

  listen(listener: (conversationId: string) => void): void {
    this.#listener = listener;
  }

  /** A row for this conversation was written in the open transaction. */
  wrote(conversationId: string): void {
    if (this.#listener) this.#written.add(conversationId);
  }

  /** The open transaction's fate: committed rows are told, rolled back ones forgotten. */
  settle(committed: boolean): void {
    if (this.#written.size === 0) return;
    const written = this.#written;
    this.#written = new Set();
    const listener = this.#listener;
    if (!committed || !listener) return;
    for (const conversationId of written) {
      try {
        listener(conversationId);
      } catch {
        // Only a nudge: the explicit kicks after each outcome, and the sweep, still deliver the rows.
      }
    }
  }
}

const noticesByDatabase = new WeakMap<Database.Database, OutboxCommitNotices>();

export function outboxCommitNoticesOf(db: Database.Database): OutboxCommitNotices {
  let notices = noticesByDatabase.get(db);
  if (!notices) {
    notices = new OutboxCommitNotices();
    noticesByDatabase.set(db, notices);
  }
  return notices;
}
