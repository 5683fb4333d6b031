import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../../support/postgres-test-database.js';
import { tempDir } from '../../support/temp-dir.js';
import { runToEnd, stackLine } from './run-holdfast.js';

describe('start-up on PostgreSQL', () => {
  it('names HOLDFAST_DB when the server refuses the password, and never shows it', async () => {
    const dir = tempDir('holdfast-startup-');
    const url = new URL(postgresTestUrl());
    const wrong = 'not-the-password-at-all-7';
    url.password = wrong;

    const run = await runToEnd({
      env: { PORT: '0', HOLDFAST_DB: url.toString(), HOLDFAST_WORKDIR: dir.file('work') },
    });

    expect(run.code).toBe(1);
    const target = `${url.hostname}:${url.port}${url.pathname}`;
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'holdfast could not start:',
      `database: HOLDFAST_DB: the PostgreSQL server at ${target} refused the user "${url.username}" (password authentication failed for user "${url.username}"). Check the user and password in HOLDFAST_DB (percent-encode special characters in the password), and that the server lets this user connect from here (pg_hba.conf).`,
    ]);
    expect(run.stderr + run.stdout).not.toContain(wrong);
    expect(run.stderr).not.toMatch(stackLine);
  });

  it('names HOLDFAST_DB when the database does not exist on the server', async () => {
    const dir = tempDir('holdfast-startup-');
    const url = new URL(postgresTestUrl());
    url.pathname = '/no_such_database';

    const run = await runToEnd({
      env: { PORT: '0', HOLDFAST_DB: url.toString(), HOLDFAST_WORKDIR: dir.file('work') },
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `database: HOLDFAST_DB: the database in ${url.hostname}:${url.port}/no_such_database does not exist on that server`,
    );
    expect(run.stderr).not.toContain(url.password);
  });
});
