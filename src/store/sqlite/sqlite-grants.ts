import type { Grant } from '../records.js';
import { describeGrant, type GrantRow, grantMatchJson, toGrant } from '../row-mappers.js';
import type { Effects, GrantFilter, GrantScopes, GrantStore, GrantUse, NewGrant } from '../store.js';
import { type SqliteContext, translateBusy, writeTransaction } from './sqlite-context.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';

/** Usable: not revoked, not expired at `@now`, not used up. */
const USABLE = `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @now) AND (uses_left IS NULL OR uses_left > 0)`;
const IN_SCOPES = `((scope = 'conversation' AND scope_id = @conversationId) OR (scope = 'channel' AND scope_id = @channelId))`;

/**
 * Creates a grant inside a decision's transaction (one that grants as it allows: "always"); an identical grant still standing is returned instead, and only a new one is
 * audited.
 */
export function prepareGrantCreate({ db }: SqliteContext): (grant: NewGrant, at: number) => Grant {
  const insert = db.prepare(
    `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at, source_request_id, match_json,
       args_hash, expires_at, uses_left)
     VALUES (@scope, @scopeId, @toolName, @createdBy, @now, @sourceRequestId, @matchJson, @argsHash, @expiresAt,
       @usesLeft)`,
  );
  const identical = db.prepare<
    {
      scope: string;
      scopeId: string;
      toolName: string;
      matchJson: string | null;
      argsHash: string | null;
      now: number;
    },
    GrantRow
  >(
    `SELECT * FROM grants WHERE ${USABLE} AND scope = @scope AND scope_id = @scopeId AND tool_name = @toolName
       AND match_json IS @matchJson AND args_hash IS @argsHash ORDER BY id LIMIT 1`,
  );
  const byId = db.prepare<[number], GrantRow>('SELECT * FROM grants WHERE id = ?');
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return (grant, at) => {
    const key = {
      scope: grant.scope,
      scopeId: grant.scopeId,
      toolName: grant.toolName,
      matchJson: grantMatchJson(grant.match),
      argsHash: grant.argsHash ?? null,
      now: at,
    };
    const existing = identical.get(key);
    if (existing) return toGrant(existing);
    const inserted = insert.run({
      ...key,
      createdBy: grant.createdBy,
      sourceRequestId: grant.sourceRequestId ?? null,
      expiresAt: grant.expiresAt ?? null,
      usesLeft: grant.maxUses ?? null,
    });
    const row = byId.get(Number(inserted.lastInsertRowid));
    if (!row) throw new Error('grant vanished inside its own transaction');
    audit.run(
      at,
      grant.createdBy,
      'grant.created',
      grant.sourceRequestId ?? null,
      conversationOf(row),
      JSON.stringify(describeGrant(row)),
    );
    return toGrant(row);
  };
}

function conversationOf(row: GrantRow): string | null {
  return row.scope === 'conversation' ? row.scope_id : null;
}

/** Grants are rows, never process memory: they must survive a restart. */
export function createSqliteGrants(context: SqliteContext): GrantStore {
  const { db, now } = context;
  const writeOutbox = prepareOutboxWriter(context);
  type ScopeParams = GrantScopes & { toolName: string; now: number };
  const usable = db.prepare<ScopeParams, GrantRow>(
    `SELECT * FROM grants WHERE ${USABLE} AND tool_name = @toolName AND ${IN_SCOPES} ORDER BY id LIMIT 200`,
  );
  const revoke = db.prepare(
    'UPDATE grants SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const countUse = db.prepare<{ id: number; now: number }>(
    `UPDATE grants SET uses_left = CASE WHEN uses_left IS NULL THEN NULL ELSE uses_left - 1 END
     WHERE id = @id AND ${USABLE}`,
  );
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, conversation_id, data_json) VALUES (?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[number], GrantRow>('SELECT * FROM grants WHERE id = ?');
  const list = db.prepare<
    {
      conversationId: string | null;
      channelId: string | null;
      inChannel: string | null;
      createdBy: string | null;
      now: number;
    },
    GrantRow
  >(
    `SELECT * FROM grants g WHERE ${USABLE}
       AND (@conversationId IS NULL OR @channelId IS NOT NULL OR (scope = 'conversation' AND scope_id = @conversationId))
       AND (@channelId IS NULL OR @conversationId IS NOT NULL OR (scope = 'channel' AND scope_id = @channelId))
       AND (@conversationId IS NULL OR @channelId IS NULL OR ${IN_SCOPES})
       AND (@inChannel IS NULL OR (scope = 'channel' AND scope_id = @inChannel) OR (scope = 'conversation'
         AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = g.scope_id AND c.channel_id = @inChannel)))
       AND (@createdBy IS NULL OR created_by = @createdBy)
     ORDER BY id LIMIT 200`,
  );

  const revokeGrant = writeTransaction(db, (id: number, by: string): boolean => {
    const at = now();
    const changed = revoke.run(at, by, id).changes === 1;
    const row = byId.get(id);
    if (changed && row)
      audit.run(at, by, 'grant.revoked', conversationOf(row), JSON.stringify(describeGrant(row)));
    return changed;
  });

  const useGrant = writeTransaction(
    db,
    (id: number, use: GrantUse, effects: Effects = {}): Grant | undefined => {
      const at = now();
      if (countUse.run({ id, now: at }).changes === 0) return undefined;
      const row = byId.get(id);
      if (!row) return undefined;
      audit.run(
        at,
        row.created_by,
        'grant.used',
        use.conversationId,
        JSON.stringify({ ...describeGrant(row), turnId: use.turnId, toolCallId: use.toolCallId }),
      );
      writeOutbox(effects.outbox ?? [], at);
      return toGrant(row);
    },
  );

  return {
    async usable(toolName, scopes) {
      return translateBusy(() => usable.all({ toolName, ...scopes, now: now() })).map(toGrant);
    },
    use: async (id, use, effects) => useGrant(id, use, effects),
    revoke: async (id, by) => revokeGrant(id, by),
    async get(id) {
      const row = byId.get(id);
      return row ? toGrant(row) : undefined;
    },
    async list(filter: GrantFilter) {
      const params = {
        conversationId: filter.conversationId ?? null,
        channelId: filter.channelId ?? null,
        inChannel: filter.inChannel ?? null,
        createdBy: filter.createdBy ?? null,
        now: now(),
      };
      if (Object.values(params).every((value) => value === null || typeof value === 'number')) return [];
      return list.all(params).map(toGrant);
    },
  };
}
