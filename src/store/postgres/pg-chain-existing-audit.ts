import type { PoolClient } from 'pg';
import { z } from 'zod';
import { auditRowHash } from '../rules/audit-chain.js';

const pageSize = 1_000;

const rowSchema = z.object({
  id: z.number(),
  at: z.number(),
  actor: z.string(),
  kind: z.string(),
  approval_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  data_json: z.string(),
});

/**
 * Chains the audit rows a database already holds, oldest first, with the rule new rows follow
 * (`auditRowHash`): the hash is computed here rather than in SQL so that PostgreSQL, SQLite and the
 * verifier agree byte for byte. Runs inside the migration's transaction, under the chain's lock.
 */
export async function chainExistingAuditRows(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(1752134756, 2)');
  let previousHash: string | null = null;
  let afterId = 0;
  for (;;) {
    const result = await client.query(
      `SELECT id, at, actor, kind, approval_id, conversation_id, data_json FROM audit_events
       WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, pageSize],
    );
    const rows = z.array(rowSchema).parse(result.rows);
    if (rows.length === 0) return;
    const ids: number[] = [];
    const previous: Array<string | null> = [];
    const hashes: string[] = [];
    for (const row of rows) {
      const hash = auditRowHash(previousHash, {
        id: row.id,
        at: row.at,
        actor: row.actor,
        kind: row.kind,
        approvalId: row.approval_id,
        conversationId: row.conversation_id,
        data: z.record(z.string(), z.unknown()).parse(JSON.parse(row.data_json)),
      });
      ids.push(row.id);
      previous.push(previousHash);
      hashes.push(hash);
      previousHash = hash;
    }
    await client.query(
      `UPDATE audit_events AS a SET previous_hash = u.previous_hash, hash = u.hash
       FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, previous_hash, hash)
       WHERE a.id = u.id`,
      [ids, previous, hashes],
    );
    afterId = rows.at(-1)?.id ?? afterId;
  }
}
