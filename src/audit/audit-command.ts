import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.js';
import { describeError } from '../errors.js';
import { openStore } from '../startup/open-store.js';
import type { Store } from '../store/index.js';
import type { AuditEvent } from '../store/records.js';
import { StoredRowInvalidError } from '../store/store-errors.js';
import {
  type AuditAnchor,
  AuditChainVerifier,
  describeAuditChainBreak,
  parseAuditAnchor,
} from './verify-audit-chain.js';

const usage =
  'Usage: holdfast audit export [--since <ISO time>] | holdfast audit verify [--anchor <row id>:<hash>]';
const pageSize = 1_000;

export interface AuditCommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/**
 * `holdfast audit export|verify`, against the configured database, SQLite or PostgreSQL (the bot may be
 * running: both let this read beside it). Returns the exit code: 0 done, 1 the chain is broken or the
 * database unusable, 2 a usage mistake.
 */
export async function auditCommand(args: readonly string[], io: AuditCommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  let options: { since?: string; anchor?: string };
  try {
    options = parseArgs({
      args: [...rest],
      options: { since: { type: 'string' }, anchor: { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    io.stderr.write(`holdfast audit: ${describeError(error)}\n${usage}\n`);
    return 2;
  }
  const since = options.since === undefined ? undefined : parseSince(options.since);
  const anchor = options.anchor === undefined ? undefined : parseAuditAnchor(options.anchor);
  const mistake =
    subcommand !== 'export' && subcommand !== 'verify'
      ? `unknown subcommand "${subcommand ?? ''}"`
      : Number.isNaN(since)
        ? `--since ${options.since} is not a time such as 2026-01-31T00:00:00Z`
        : options.anchor !== undefined && subcommand !== 'verify'
          ? '--anchor goes with verify'
          : options.anchor !== undefined && anchor === undefined
            ? `--anchor ${options.anchor} is not <row id>:<hash>, as verify prints a trail's last row`
            : undefined;
  if (mistake) {
    io.stderr.write(`holdfast audit: ${mistake}\n${usage}\n`);
    return 2;
  }
  let store: Store;
  try {
    const config = loadConfig(io.env, io.cwd);
    // The adapter the bot uses: the SQLite file, or the PostgreSQL server HOLDFAST_DB names.
    ({ store } = await openStore(config, { now: Date.now, logger: pino({ level: 'silent' }) }));
  } catch (error) {
    io.stderr.write(`holdfast audit: ${describeError(error)}\n`);
    return 1;
  }
  try {
    return subcommand === 'export'
      ? await exportTrail(store, since, io.stdout)
      : await verifyTrail(store, io.stdout, anchor);
  } finally {
    await store.close();
  }
}

function parseSince(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
}

async function* pages(store: Store, since: number | undefined): AsyncGenerator<AuditEvent[]> {
  let afterId = 0;
  for (;;) {
    const page = await store.audit.list({ afterId, since, limit: pageSize });
    if (page.length === 0) return;
    yield page;
    afterId = page.at(-1)!.id;
  }
}

/** JSON Lines, oldest first, each with its hashes so a SIEM copy can anchor the chain. */
async function exportTrail(store: Store, since: number | undefined, out: Writable): Promise<number> {
  for await (const page of pages(store, since)) {
    const text = page
      .map((event) => `${JSON.stringify({ ...event, time: new Date(event.at).toISOString() })}\n`)
      .join('');
    if (!out.write(text)) await once(out, 'drain');
  }
  return 0;
}

async function verifyTrail(store: Store, out: Writable, anchor: AuditAnchor | undefined): Promise<number> {
  const verifier = new AuditChainVerifier(anchor);
  try {
    for await (const page of pages(store, undefined)) {
      for (const event of page) {
        const found = verifier.check(event);
        if (found) return broken(verifier.rows, describeAuditChainBreak(found), out);
      }
    }
  } catch (error) {
    if (!(error instanceof StoredRowInvalidError) || error.table !== 'audit_events') throw error;
    const at = { type: 'unreadable', id: Number(error.key), detail: error.message } as const;
    return broken(verifier.rows, describeAuditChainBreak(at), out);
  }
  const past = verifier.finish();
  if (past) return broken(verifier.rows, describeAuditChainBreak(past), out);
  const head = verifier.head();
  const last = head.lastId === null ? '' : `, last row ${head.lastId} with hash ${head.lastHash}`;
  const anchored = anchor ? `; anchor row ${anchor.id} matches` : '';
  out.write(`audit trail intact: ${head.rows} rows${last}${anchored}\n`);
  return 0;
}

function broken(rows: number, description: string, out: Writable): number {
  out.write(`audit trail broken: ${description} (found after checking ${rows} rows)\n`);
  return 1;
}
