import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  type EphemeralRow,
  type LocalEphemeral,
  type LocalMessage,
  type LocalReaction,
  type LocalStream,
  type MessageRow,
  toEphemeral,
  toMessage,
} from './local-records.js';

export {
  type LocalEphemeral,
  type LocalMessage,
  type LocalMetadata,
  type LocalReaction,
  type LocalStream,
  localMetadataSchema,
  localStreamSchema,
} from './local-records.js';

/**
 * The local workspace's own SQLite file: what Slack would keep on its side (messages, reactions,
 * ephemerals, App Home views), so threads and cards survive a restart of holdfast.
 */
export class LocalStore {
  readonly #db: Database.Database;
  readonly #now: () => number;

  constructor(databasePath: string, now: () => number) {
    mkdirSync(path.dirname(databasePath), { recursive: true });
    this.#db = new Database(databasePath);
    this.#db.pragma('journal_mode = WAL');
    this.#now = now;
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS messages (
        channel TEXT NOT NULL, ts TEXT NOT NULL, thread_ts TEXT, user TEXT NOT NULL, bot_id TEXT,
        text TEXT NOT NULL, blocks TEXT, edited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (channel, ts));
      CREATE TABLE IF NOT EXISTS ephemerals (
        id INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL, user TEXT NOT NULL, thread_ts TEXT,
        ts TEXT NOT NULL, text TEXT NOT NULL, blocks TEXT);
      CREATE TABLE IF NOT EXISTS reactions (
        channel TEXT NOT NULL, ts TEXT NOT NULL, name TEXT NOT NULL, user TEXT NOT NULL,
        PRIMARY KEY (channel, ts, name, user));
      CREATE TABLE IF NOT EXISTS views (user TEXT PRIMARY KEY, view TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
    // Workspaces saved before messages kept their metadata gain the column; their old messages have none.
    const columns = this.#db.prepare('PRAGMA table_info(messages)').all() as Array<{ name: string }>;
    if (!columns.some((column) => column.name === 'metadata'))
      this.#db.exec('ALTER TABLE messages ADD COLUMN metadata TEXT');
    if (!columns.some((column) => column.name === 'stream'))
      this.#db.exec('ALTER TABLE messages ADD COLUMN stream TEXT');
  }

  /** Slack ts values are unique and sort by time; the last one is kept so a restart never reuses one. */
  nextTs(): string {
    const next = this.#db.transaction(() => {
      const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'last_ts_micros'").get() as
        | { value: string }
        | undefined;
      const last = row ? Number(row.value) : 0;
      const micros = Math.max(this.#now() * 1000, last + 1);
      this.#db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('last_ts_micros', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(String(micros));
      return micros;
    })();
    return `${Math.floor(next / 1_000_000)}.${String(next % 1_000_000).padStart(6, '0')}`;
  }

  addMessage(message: Omit<LocalMessage, 'ts' | 'edited'>): LocalMessage {
    const ts = this.nextTs();
    this.#db
      .prepare(
        `INSERT INTO messages (channel, ts, thread_ts, user, bot_id, text, blocks, metadata, stream)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        message.channel,
        ts,
        message.threadTs ?? null,
        message.user,
        message.botId ?? null,
        message.text,
        message.blocks.length > 0 ? JSON.stringify(message.blocks) : null,
        message.metadata ? JSON.stringify(message.metadata) : null,
        message.stream ? JSON.stringify(message.stream) : null,
      );
    return { ...message, ts, edited: false };
  }

  updateMessage(channel: string, ts: string, change: { text?: string; blocks?: readonly unknown[] }) {
    const existing = this.message(channel, ts);
    if (!existing) return undefined;
    const text = change.text ?? existing.text;
    const blocks = change.blocks ?? existing.blocks;
    // A rewritten stream is an ordinary message from then on: its new text and blocks are all it shows.
    this.#db
      .prepare(
        'UPDATE messages SET text = ?, blocks = ?, stream = NULL, edited = 1 WHERE channel = ? AND ts = ?',
      )
      .run(text, blocks.length > 0 ? JSON.stringify(blocks) : null, channel, ts);
    const { stream: _rewritten, ...rest } = existing;
    return { ...rest, text, blocks, edited: true };
  }

  /** A stream grew (`chat.appendStream`) or ended (`chat.stopStream`); not an edit. */
  updateStream(channel: string, ts: string, change: { text: string; stream: LocalStream }): void {
    this.#db
      .prepare('UPDATE messages SET text = ?, stream = ? WHERE channel = ? AND ts = ?')
      .run(change.text, JSON.stringify(change.stream), channel, ts);
  }

  message(channel: string, ts: string): LocalMessage | undefined {
    const row = this.#db.prepare('SELECT * FROM messages WHERE channel = ? AND ts = ?').get(channel, ts) as
      | MessageRow
      | undefined;
    return row ? toMessage(row) : undefined;
  }

  /** A thread's root and its replies after `oldest` (exclusive, as Slack's), oldest first. */
  thread(channel: string, threadTs: string, oldest = '0'): LocalMessage[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM messages WHERE channel = ? AND (ts = ? OR thread_ts = ?) AND CAST(ts AS REAL) > CAST(? AS REAL)
         ORDER BY ts`,
      )
      .all(channel, threadTs, threadTs, oldest) as MessageRow[];
    return rows.map(toMessage);
  }

  /** A channel's own messages after `oldest` (replies stay in their threads), newest first. */
  history(channel: string, oldest = '0'): LocalMessage[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM messages WHERE channel = ? AND (thread_ts IS NULL OR thread_ts = ts)
           AND CAST(ts AS REAL) > CAST(? AS REAL)
         ORDER BY ts DESC`,
      )
      .all(channel, oldest) as MessageRow[];
    return rows.map(toMessage);
  }

  messages(): LocalMessage[] {
    const rows = this.#db.prepare('SELECT * FROM messages ORDER BY ts').all() as MessageRow[];
    return rows.map(toMessage);
  }

  addEphemeral(ephemeral: Omit<LocalEphemeral, 'id' | 'ts'>): LocalEphemeral {
    const ts = this.nextTs();
    const result = this.#db
      .prepare(
        'INSERT INTO ephemerals (channel, user, thread_ts, ts, text, blocks) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        ephemeral.channel,
        ephemeral.user,
        ephemeral.threadTs ?? null,
        ts,
        ephemeral.text,
        ephemeral.blocks.length > 0 ? JSON.stringify(ephemeral.blocks) : null,
      );
    return { ...ephemeral, id: Number(result.lastInsertRowid), ts };
  }

  ephemeralsFor(user: string): LocalEphemeral[] {
    const rows = this.#db
      .prepare('SELECT * FROM ephemerals WHERE user = ? ORDER BY id')
      .all(user) as EphemeralRow[];
    return rows.map(toEphemeral);
  }

  /** False when the reaction was already there (Slack's `already_reacted`). */
  addReaction(reaction: LocalReaction): boolean {
    const result = this.#db
      .prepare('INSERT OR IGNORE INTO reactions (channel, ts, name, user) VALUES (?, ?, ?, ?)')
      .run(reaction.channel, reaction.ts, reaction.name, reaction.user);
    return result.changes > 0;
  }

  /** False when there was no such reaction (Slack's `no_reaction`). */
  removeReaction(reaction: LocalReaction): boolean {
    const result = this.#db
      .prepare('DELETE FROM reactions WHERE channel = ? AND ts = ? AND name = ? AND user = ?')
      .run(reaction.channel, reaction.ts, reaction.name, reaction.user);
    return result.changes > 0;
  }

  reactions(): LocalReaction[] {
    return this.#db
      .prepare('SELECT channel, ts, name, user FROM reactions ORDER BY rowid')
      .all() as LocalReaction[];
  }

  publishView(user: string, view: unknown): void {
    this.#db
      .prepare(
        'INSERT INTO views (user, view) VALUES (?, ?) ON CONFLICT(user) DO UPDATE SET view = excluded.view',
      )
      .run(user, JSON.stringify(view));
  }

  view(user: string): unknown {
    const row = this.#db.prepare('SELECT view FROM views WHERE user = ?').get(user) as
      | { view: string }
      | undefined;
    return row ? JSON.parse(row.view) : undefined;
  }

  close(): void {
    this.#db.close();
  }
}
