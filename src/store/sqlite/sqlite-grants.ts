import type { Grant } from '../records.js';
import { type GrantRow, toGrant } from '../row-mappers.js';
import type { GrantStore, NewGrant } from '../store.js';
import { type SqliteContext, translateBusy, writeTransaction } from './sqlite-context.js';

/** Always-allow grants are rows, never process memory: they must survive a restart. */
export function createSqliteGrants({ db, now }: SqliteContext): GrantStore {
  const find = db.prepare<{ toolName: string; conversationId: string; channelId: string }, GrantRow>(
    `SELECT * FROM grants WHERE revoked_at IS NULL AND tool_name = @toolName
       AND ((scope = 'conversation' AND scope_id = @conversationId) OR (scope = 'channel' AND scope_id = @channelId))
     ORDER BY id LIMIT 1`,
  );
  const insert = db.prepare(
    `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at, source_request_id)
     VALUES (@scope, @scopeId, @toolName, @createdBy, @now, @sourceRequestId)
     ON CONFLICT (scope, scope_id, tool_name) WHERE revoked_at IS NULL DO NOTHING`,
  );
  const active = db.prepare<[string, string, string], GrantRow>(
    'SELECT * FROM grants WHERE scope = ? AND scope_id = ? AND tool_name = ? AND revoked_at IS NULL',
  );
  const revoke = db.prepare(
    'UPDATE grants SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, conversation_id, data_json) VALUES (?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[number], GrantRow>('SELECT * FROM grants WHERE id = ?');
  const list = db.prepare<{ conversationId: string | null; channelId: string | null }, GrantRow>(
    `SELECT * FROM grants WHERE revoked_at IS NULL
       AND ((scope = 'conversation' AND scope_id = @conversationId) OR (scope = 'channel' AND scope_id = @channelId))
     ORDER BY id`,
  );

  const create = writeTransaction(db, (grant: NewGrant): Grant => {
    const at = now();
    const inserted = insert.run({ ...grant, sourceRequestId: grant.sourceRequestId ?? null, now: at });
    const row = active.get(grant.scope, grant.scopeId, grant.toolName);
    if (!row) throw new Error('grant vanished inside its own transaction');
    if (inserted.changes === 1) {
      const data = JSON.stringify({ scope: grant.scope, scopeId: grant.scopeId, tool: grant.toolName });
      audit.run(
        at,
        grant.createdBy,
        'grant.created',
        grant.scope === 'conversation' ? grant.scopeId : null,
        data,
      );
    }
    return toGrant(row);
  });

  const revokeGrant = writeTransaction(db, (id: number, by: string): boolean => {
    const at = now();
    const changed = revoke.run(at, by, id).changes === 1;
    const row = byId.get(id);
    if (changed && row) {
      const data = JSON.stringify({ scope: row.scope, scopeId: row.scope_id, tool: row.tool_name });
      audit.run(at, by, 'grant.revoked', row.scope === 'conversation' ? row.scope_id : null, data);
    }
    return changed;
  });

  return {
    async find(toolName, scopes) {
      const row = translateBusy(() => find.get({ toolName, ...scopes }));
      return row ? toGrant(row) : undefined;
    },
    create: async (grant) => create(grant),
    revoke: async (id, by) => revokeGrant(id, by),
    async list(scopes) {
      return list
        .all({ conversationId: scopes.conversationId ?? null, channelId: scopes.channelId ?? null })
        .map(toGrant);
    },
  };
}
