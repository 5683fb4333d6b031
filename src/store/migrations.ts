import type { Migration } from './migrations/migration.js';
import { migration1 } from './migrations/migration-1.js';
import { migration2 } from './migrations/migration-2.js';
import { migration3 } from './migrations/migration-3.js';
import { migration4 } from './migrations/migration-4.js';
import { migration5 } from './migrations/migration-5.js';
import { migration6 } from './migrations/migration-6.js';
import { migration7 } from './migrations/migration-7.js';
import { migration8 } from './migrations/migration-8.js';
import { migration9 } from './migrations/migration-9.js';
import { migration10 } from './migrations/migration-10.js';

export type { Migration } from './migrations/migration.js';

/**
 * Numbered schema migrations, tracked with `PRAGMA user_version`. Append only: a migration that has
 * shipped is never edited, because files made by it exist on somebody's disk. Every past version has a
 * fixture database under test (see `migrations.test.ts`). Each one is a file of its own in `migrations/`.
 */
export const migrations: readonly Migration[] = [
  migration1,
  migration2,
  migration3,
  migration4,
  migration5,
  migration6,
  migration7,
  migration8,
  migration9,
  migration10,
];

export const latestSchemaVersion = migrations.at(-1)?.version ?? 0;
