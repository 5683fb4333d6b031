import { z } from 'zod';
import type { Grant, GrantScope } from '../records.js';
import { parseJsonColumn } from './parse-json-column.js';

export interface GrantRow {
  id: number;
  scope: GrantScope;
  scope_id: string;
  tool_name: string;
  created_by: string;
  created_at: number;
  source_request_id: string | null;
  match_json: string | null;
  args_hash: string | null;
  expires_at: number | null;
  uses_left: number | null;
}

const grantMatchSchema = z.record(z.string(), z.string());

export const toGrant = (row: GrantRow): Grant => ({
  id: row.id,
  scope: row.scope,
  scopeId: row.scope_id,
  toolName: row.tool_name,
  createdBy: row.created_by,
  createdAt: row.created_at,
  sourceRequestId: row.source_request_id,
  match:
    row.match_json === null
      ? null
      : parseJsonColumn(grantMatchSchema, row.match_json, { table: 'grants', key: String(row.id) }),
  argsHash: row.args_hash,
  expiresAt: row.expires_at,
  usesLeft: row.uses_left,
});

/** The same pattern, whatever order its arguments were named in, so identical grants compare equal. */
export function grantMatchJson(match: Readonly<Record<string, string>> | undefined): string | null {
  if (!match) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(match).sort(([a], [b]) => a.localeCompare(b))));
}

/** What a grant's audit rows say about it. */
export function describeGrant(row: GrantRow) {
  return {
    grantId: row.id,
    scope: row.scope,
    scopeId: row.scope_id,
    tool: row.tool_name,
    ...(row.match_json === null ? {} : { match: JSON.parse(row.match_json) as unknown }),
    ...(row.args_hash === null ? {} : { exactCall: true }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.uses_left === null ? {} : { usesLeft: row.uses_left }),
  };
}
