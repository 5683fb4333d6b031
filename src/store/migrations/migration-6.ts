import type { Migration } from './migration.js';

export const migration6: Migration = {
  version: 6,
  description: 'reasons for decisions; grants narrowed by argument patterns, expiring, with a use limit',
  // No older release may run on it (the floor is this version): an older release reads any grant as
  // "the whole tool, forever", so a pattern grant would widen under it.
  sql: `
      -- What the person who denied a request said, for the model and the thread.
      ALTER TABLE approvals ADD COLUMN decision_reason TEXT;

      -- A grant covers the calls whose named arguments match these globs (a JSON object of argument name to
      -- pattern); NULL covers every call of the tool, as grants of earlier schemas did.
      ALTER TABLE grants ADD COLUMN match_json TEXT;
      -- Set for a grant of one exact call: it covers calls with these very arguments and nothing else.
      ALTER TABLE grants ADD COLUMN args_hash TEXT;
      ALTER TABLE grants ADD COLUMN expires_at INTEGER;
      -- NULL: no limit. Counted down by each call that runs under the grant; 0 is used up.
      ALTER TABLE grants ADD COLUMN uses_left INTEGER;
      -- Several grants of one tool may stand side by side now, each for its own pattern.
      DROP INDEX grants_active;
      CREATE INDEX grants_by_scope ON grants (scope, scope_id, tool_name) WHERE revoked_at IS NULL;
    `,
};
