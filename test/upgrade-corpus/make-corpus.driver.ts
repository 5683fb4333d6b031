/**
 * Run by make-corpus.sh inside a checkout of an earlier release, as a test of that release (copied to
 * test/flows/core/, where its core harness sits): that release's own runtime and store write the file.
 * Kept to the harness surface every release has had since the core harness ran on PostgreSQL too
 * (7a5fce4: `startCoreHarnessOn`, `rows`); older releases cannot run it.
 *
 * The file holds, as the release left it when its process died:
 * - thread 1700.1: a request decided "Always allow" (a grant), its call run and the turn answered;
 * - thread 1700.2: a turn waiting on one request (`db`);
 * - thread 1700.3: a turn waiting on two calls of one assistant message (`cache`, `queue`);
 * - thread 1700.4: a turn running `slow_job`, started and never finished;
 * - the cards and answers of all of these in the outbox, unsent (the release ran with no front end).
 *
 * With HOLDFAST_CORPUS_POSTGRES_URL set (make-corpus.sh --postgres), the same happens through the
 * release's PostgreSQL store on that database, and HOLDFAST_CORPUS_OUT receives its `pg_dump`: plain SQL
 * with INSERTs, no COPY and no psql meta-commands, so the `pg` driver can restore it as one query.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import {
  type CoreEngine,
  type CoreHarness,
  countingTool,
  startCoreHarness,
  startCoreHarnessOn,
} from './core-harness.js';

const output = process.env.HOLDFAST_CORPUS_OUT;
const postgresUrl = process.env.HOLDFAST_CORPUS_POSTGRES_URL;

/**
 * The release's PostgreSQL store on the database at `url`, in the user's default schema. Imported only
 * here, so the SQLite run needs nothing a release without PostgreSQL lacks.
 */
async function postgresCorpusEngine(url: string): Promise<CoreEngine & { close(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const { openPostgresStore } = await import('../../../src/store/postgres/create-postgres-store.js');
  const { poolConfig } = await import('../../../src/store/postgres/open-postgres.js');
  const reader = new pg.Pool(poolConfig({ url, poolSize: 1 }));
  return {
    open: (clock) => openPostgresStore({ url, clock, poolSize: 4 }),
    rows: async <Row>(sql: string) => (await reader.query(sql)).rows as Row[],
    close: () => reader.end(),
  };
}

/** Plain SQL the `pg` driver runs as one simple query: psql's `\restrict` guard lines go. */
function dumpPostgres(url: string, file: string): void {
  const dump = execFileSync('pg_dump', ['--inserts', '--no-owner', '--no-privileges', `--dbname=${url}`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(file, dump.replace(/^\\(un)?restrict .*\n/gm, ''));
}

it.runIf(output !== undefined)('writes this release’s corpus file', async () => {
  const restart = countingTool('restart_service');
  let slowStarted = false;
  const slowJob = defineTool({
    name: 'slow_job',
    description: 'A job that takes longer than the process lives.',
    parameters: z.object({}),
    permission: () => ({ type: 'allow', reason: 'safe' }),
    execute: () => {
      slowStarted = true;
      return new Promise<string>(() => undefined);
    },
  });
  const model = new ScriptedChatModel([
    reply.toolCalls(['slow_job', {}]),
    reply.toolCalls(['restart_service', { service: 'web' }]),
    reply.text('web is restarted'),
    reply.toolCalls(['restart_service', { service: 'db' }]),
    reply.toolCalls(['restart_service', { service: 'cache' }], ['restart_service', { service: 'queue' }]),
  ]);
  const options = { model, tools: [restart.tool, slowJob as never] };
  const engine = postgresUrl === undefined ? undefined : await postgresCorpusEngine(postgresUrl);
  const core: CoreHarness = engine ? await startCoreHarnessOn(engine, options) : startCoreHarness(options);

  await core.submit('1700.4', 'run the nightly job');
  await expect.poll(() => slowStarted).toBe(true);

  await core.submit('1700.1', 'restart web');
  const web = await core.nextOutcome();
  if (web.type !== 'awaiting-approval') throw new Error(`expected a request, got ${web.type}`);
  expect((await core.decide(web.approval.requestId, 'always')).type).toBe('decided');
  expect((await core.nextOutcome()).type).toBe('completed');

  await core.submit('1700.2', 'restart db');
  expect((await core.nextOutcome()).type).toBe('awaiting-approval');
  await core.submit('1700.3', 'restart cache and queue');
  expect((await core.nextOutcome()).type).toBe('awaiting-approval');
  expect(restart.runs).toEqual(['web']);

  // What a process that died now would leave on disk: every commit so far, nothing more.
  await expect
    .poll(
      async () =>
        (
          await core.rows<{ n: number | string }>(
            "SELECT count(*) AS n FROM tool_executions WHERE tool_name = 'slow_job'",
          )
        )[0]?.n,
    )
    .toSatisfy((n) => Number(n) === 1);
  if (engine && postgresUrl) {
    dumpPostgres(postgresUrl, output as string);
    await engine.close();
    return;
  }
  await (core as ReturnType<typeof startCoreHarness>).db.backup(output as string);
  const copy = new Database(output as string);
  copy.pragma('journal_mode = DELETE');
  copy.exec('VACUUM');
  copy.close();
});
