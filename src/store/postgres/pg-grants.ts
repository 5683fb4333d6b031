import { type GrantRow, toGrant } from '../row-mappers.js';
import type { GrantStore, NewGrant } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { type PgContext, read, transaction } from './pg-context.js';

/** Always-allow grants are rows, never process memory: every replica sees them. */
export function createPgGrants(context: PgContext): GrantStore {
  return {
    async find(toolName, scopes) {
      const [row] = await read<GrantRow>(
        context,
        `SELECT * FROM grants WHERE revoked_at IS NULL AND tool_name = $1
           AND ((scope = 'conversation' AND scope_id = $2) OR (scope = 'channel' AND scope_id = $3))
         ORDER BY id LIMIT 1`,
        [toolName, scopes.conversationId, scopes.channelId],
      );
      return row ? toGrant(row) : undefined;
    },
    create: (grant: NewGrant) =>
      transaction(context, async (tx) => {
        const inserted = await tx.run(
          `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at, source_request_id)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (scope, scope_id, tool_name) WHERE revoked_at IS NULL DO NOTHING`,
          [
            grant.scope,
            grant.scopeId,
            grant.toolName,
            grant.createdBy,
            tx.now,
            grant.sourceRequestId ?? null,
          ],
        );
        const row = await tx.one<GrantRow>(
          'SELECT * FROM grants WHERE scope = $1 AND scope_id = $2 AND tool_name = $3 AND revoked_at IS NULL',
          [grant.scope, grant.scopeId, grant.toolName],
        );
        if (!row) throw new Error('grant vanished inside its own transaction');
        if (inserted === 1) {
          insertAuditRow(tx, {
            actor: grant.createdBy,
            kind: 'grant.created',
            conversationId: grant.scope === 'conversation' ? grant.scopeId : null,
            data: { scope: grant.scope, scopeId: grant.scopeId, tool: grant.toolName },
          });
        }
        return toGrant(row);
      }),
    revoke: (id, by) =>
      transaction(context, async (tx) => {
        const row = await tx.one<GrantRow>(
          'UPDATE grants SET revoked_at = $2, revoked_by = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING *',
          [id, tx.now, by],
        );
        if (!row) return false;
        insertAuditRow(tx, {
          actor: by,
          kind: 'grant.revoked',
          conversationId: row.scope === 'conversation' ? row.scope_id : null,
          data: { scope: row.scope, scopeId: row.scope_id, tool: row.tool_name },
        });
        return true;
      }),
    async list(scopes) {
      const rows = await read<GrantRow>(
        context,
        `SELECT * FROM grants WHERE revoked_at IS NULL
           AND ((scope = 'conversation' AND scope_id = $1) OR (scope = 'channel' AND scope_id = $2))
         ORDER BY id`,
        [scopes.conversationId ?? null, scopes.channelId ?? null],
      );
      return rows.map(toGrant);
    },
  };
}
