import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { ConfigError } from '../errors.js';
import { createBuiltinTools } from './index.js';

/** holdfast's own database in WAL mode (so its -wal and -shm files exist), and a team database beside it. */
function files() {
  const dir = tempDir();
  const holdfastDatabasePath = dir.file('holdfast.db');
  const own = new Database(holdfastDatabasePath);
  own.pragma('journal_mode = WAL');
  own.exec("CREATE TABLE messages (content TEXT); INSERT INTO messages VALUES ('a transcript')");
  const team = dir.file('team.db');
  new Database(team).exec('CREATE TABLE services (name TEXT)').close();
  return { dir, holdfastDatabasePath, team, close: () => own.close() };
}

function build(sqlUrl: string, holdfastDatabasePath: string) {
  return createBuiltinTools({
    workdir: path.dirname(holdfastDatabasePath),
    env: { PATH: '/usr/bin:/bin' },
    shellTimeoutMs: 1_000,
    httpAllowHosts: [],
    httpInternalHosts: [],
    sqlUrl,
    holdfastDatabasePath,
    deployServices: {},
  });
}

describe('createBuiltinTools with HOLDFAST_SQL_URL', () => {
  it("refuses holdfast's own database under every name", () => {
    const { dir, holdfastDatabasePath, close } = files();
    fs.symlinkSync(holdfastDatabasePath, dir.file('reports.db'));
    fs.linkSync(holdfastDatabasePath, dir.file('hardlinked.db'));
    const spellings = [
      holdfastDatabasePath,
      `sqlite:${holdfastDatabasePath}`,
      `${pathToFileURL(holdfastDatabasePath).href}?mode=ro&immutable=1`,
      `file:${holdfastDatabasePath}?cache=shared`,
      dir.file('reports.db'),
      dir.file('hardlinked.db'),
      path.join(dir.path, '.', 'x', '..', 'holdfast.db'),
      `${holdfastDatabasePath}-wal`,
      `${holdfastDatabasePath}-shm`,
    ];
    for (const sqlUrl of spellings) {
      let refusal: unknown;
      try {
        build(sqlUrl, holdfastDatabasePath);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, sqlUrl).toBeInstanceOf(ConfigError);
      expect((refusal as ConfigError).message).toMatch(/^HOLDFAST_SQL_URL points at holdfast's own database/);
    }
    close();
  });

  it("builds sql_query for the team's database", () => {
    const { holdfastDatabasePath, team, close } = files();
    expect(build(team, holdfastDatabasePath).map((tool) => tool.name)).toContain('sql_query');
    close();
  });
});
