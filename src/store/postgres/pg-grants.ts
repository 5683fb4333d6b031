import type { Grant } from '../records.js';
import { describeGrant, type GrantRow, grantMatchJson, toGrant } from '../row-mappers.js';
import type { GrantFilter, GrantStore, NewGrant } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { momentSql, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { writeOutbox } from './pg-outbox-writer.js';

/** Usable at `$now`: not revoked, not expired, not used up. */
const usableAt = (now: string) =>
  `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}) AND (uses_left IS NULL OR uses_left > 0)`;
const inScopes = (conversation: string, channel: string) =>
  `((scope = 'conversation' AND scope_id = ${conversation}) OR (scope = 'channel' AND scope_id = ${channel}))`;

const conversationOf = (row: GrantRow) => (row.scope === 'conversation' ? row.scope_id : null);

/**
 * Creates a grant inside a decision's transaction (one that grants as it allows: "always"); an identical grant still standing is returned instead, and only a new one is audited.
 * No unique index can say "identical and still usable", so creators of one scope and tool queue on an
 * advisory lock of their own: two replicas never both find none and both insert.
 */
export async function createGrantInside(tx: Tx, grant: NewGrant): Promise<Grant> {
  const matchJson = grantMatchJson(grant.match);
  const argsHash = grant.argsHash ?? null;
  tx.later('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `grant:${grant.scope}:${grant.scopeId}:${grant.toolName}`,
  ]);
  const existing = await tx.one<GrantRow>(
    `SELECT * FROM grants WHERE ${usableAt('$1')} AND scope = $2 AND scope_id = $3 AND tool_name = $4
       AND match_json IS NOT DISTINCT FROM $5 AND args_hash IS NOT DISTINCT FROM $6 ORDER BY id LIMIT 1`,
    [tx.now, grant.scope, grant.scopeId, grant.toolName, matchJson, argsHash],
  );
  if (existing) return toGrant(existing);
  const row = await tx.one<GrantRow>(
    `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at, source_request_id, match_json,
       args_hash, expires_at, uses_left)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING *`,
    [
      grant.scope,
      grant.scopeId,
      grant.toolName,
      grant.createdBy,
      tx.now,
      grant.sourceRequestId ?? null,
      matchJson,
      argsHash,
      grant.expiresAt ?? null,
      grant.maxUses ?? null,
    ],
  );
  if (!row) throw new Error('grant vanished inside its own transaction');
  insertAuditRow(tx, {
    actor: grant.createdBy,
    kind: 'grant.created',
    approvalId: grant.sourceRequestId ?? null,
    conversationId: conversationOf(row),
    data: describeGrant(row),
  });
  return toGrant(row);
}

/** Always-allow grants are rows, never process memory: every replica sees them. */
export function createPgGrants(context: PgContext): GrantStore {
  return {
    async usable(toolName, scopes) {
      const rows = await read<GrantRow>(
        context,
        `SELECT * FROM grants WHERE ${usableAt(momentSql(context))} AND tool_name = $1
           AND ${inScopes('$2', '$3')}
         ORDER BY id LIMIT 200`,
        [toolName, scopes.conversationId, scopes.channelId],
      );
      return rows.map(toGrant);
    },
    // One statement counts the use down and checks the grant is still usable: of two replicas racing for
    // the last use, the second waits on the row lock, re-reads it and changes nothing.
    use: (id, use, effects = {}) =>
      transaction(context, async (tx) => {
        await tx.start();
        const row = await tx.one<GrantRow>(
          `UPDATE grants SET uses_left = uses_left - 1 WHERE id = $1 AND ${usableAt('$2')} RETURNING *`,
          [id, tx.now],
        );
        if (!row) return undefined;
        insertAuditRow(tx, {
          actor: row.created_by,
          kind: 'grant.used',
          conversationId: use.conversationId,
          data: { ...describeGrant(row), turnId: use.turnId, toolCallId: use.toolCallId },
        });
        writeOutbox(tx, effects.outbox ?? []);
        return toGrant(row);
      }),
    revoke: (id, by) =>
      transaction(context, async (tx) => {
        await tx.start();
        const row = await tx.one<GrantRow>(
          'UPDATE grants SET revoked_at = $2, revoked_by = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING *',
          [id, tx.now, by],
        );
        if (!row) return false;
        insertAuditRow(tx, {
          actor: by,
          kind: 'grant.revoked',
          conversationId: conversationOf(row),
          data: describeGrant(row),
        });
        return true;
      }),
    async get(id) {
      const [row] = await read<GrantRow>(context, 'SELECT * FROM grants WHERE id = $1', [id]);
      return row ? toGrant(row) : undefined;
    },
    async list(filter: GrantFilter) {
      const conversationId = filter.conversationId ?? null;
      const channelId = filter.channelId ?? null;
      const inChannel = filter.inChannel ?? null;
      const createdBy = filter.createdBy ?? null;
      if (conversationId === null && channelId === null && inChannel === null && createdBy === null)
        return [];
      const rows = await read<GrantRow>(
        context,
        `SELECT * FROM grants g WHERE ${usableAt(momentSql(context))}
           AND ($1::text IS NULL OR $2::text IS NOT NULL OR (scope = 'conversation' AND scope_id = $1))
           AND ($2::text IS NULL OR $1::text IS NOT NULL OR (scope = 'channel' AND scope_id = $2))
           AND ($1::text IS NULL OR $2::text IS NULL OR ${inScopes('$1', '$2')})
           AND ($3::text IS NULL OR (scope = 'channel' AND scope_id = $3) OR (scope = 'conversation'
             AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = g.scope_id AND c.channel_id = $3)))
           AND ($4::text IS NULL OR created_by = $4)
         ORDER BY id LIMIT 200`,
        [conversationId, channelId, inChannel, createdBy],
      );
      return rows.map(toGrant);
    },
  };
}
