/**
 * `npm run test:mcp-conformance [scenario…]`: every client scenario of the MCP conformance suite against holdfast's
 * own connection code (client.ts), check by check. A check that fails and is not in expected-failures.ts
 * fails the run; so does an expected failure that now passes (the list must say what is true), and an
 * entry for a scenario or check the suite no longer has.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { expectedFailures } from './expected-failures.js';

const run = promisify(execFile);
const here = import.meta.dirname;
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const suite = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const node20 = path.join(here, 'node20-fs-glob.mjs');
const client = `${process.execPath} --import tsx ${path.relative(root, path.join(here, 'client.ts'))}`;
const checksSchema = z.array(z.looseObject({ id: z.string(), status: z.string() }));

function conformance(args: string[]) {
  return run(process.execPath, ['--import', node20, suite, ...args], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    // A scenario whose checks failed exits non-zero; the checks it saved are what is judged.
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? String(error),
  }));
}

async function clientScenarios(): Promise<string[]> {
  const { stdout } = await conformance(['list']);
  const section = stdout.split(/^Client scenarios.*$/m)[1] ?? '';
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] ?? '');
}

function findChecks(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'checks.json') return path.join(entry.parentPath, entry.name);
  }
  return undefined;
}

interface Outcome {
  readonly scenario: string;
  readonly passed: string[];
  readonly failed: string[];
  readonly output: string;
}

async function runScenario(scenario: string, out: string): Promise<Outcome> {
  const dir = path.join(out, scenario.replace(/\W+/g, '_'));
  const { stdout, stderr } = await conformance([
    'client',
    '--command',
    client,
    '--scenario',
    scenario,
    '--timeout',
    '20000',
    '-o',
    dir,
  ]);
  const file = (() => {
    try {
      return findChecks(dir);
    } catch {
      return undefined;
    }
  })();
  if (!file) return { scenario, passed: [], failed: ['(no checks saved)'], output: `${stdout}${stderr}` };
  const checks = checksSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const ids = (status: string) => [
    ...new Set(checks.filter((check) => check.status === status).map((check) => check.id)),
  ];
  return { scenario, passed: ids('SUCCESS'), failed: ids('FAILURE'), output: `${stdout}${stderr}` };
}

/** With scenario names as arguments, only those run (for a developer); with none, every client scenario. */
async function main(only: readonly string[]): Promise<number> {
  const listed = await clientScenarios();
  if (listed.length === 0) throw new Error('the conformance suite listed no client scenarios');
  const unknown = only.filter((name) => !listed.includes(name));
  if (unknown.length > 0) throw new Error(`no such client scenario: ${unknown.join(', ')}`);
  const scenarios = only.length > 0 ? [...only] : listed;
  const out = mkdtempSync(path.join(os.tmpdir(), 'holdfast-mcp-conformance-'));
  const outcomes: Outcome[] = [];
  // One at a time: a scenario such as sse-retry checks how long the client waits, which a busy machine blurs.
  for (const scenario of scenarios) outcomes.push(await runScenario(scenario, out));

  const problems: string[] = [];
  for (const stale of Object.keys(expectedFailures).filter((name) => !listed.includes(name)))
    problems.push(`${stale}: listed in expected-failures.ts, but the suite has no such scenario`);
  let passed = 0;
  let failedAsListed = 0;
  for (const outcome of outcomes) {
    const expected = expectedFailures[outcome.scenario]?.checks ?? [];
    const unexpected = outcome.failed.filter((id) => !expected.includes(id));
    const nowPassing = expected.filter((id) => !outcome.failed.includes(id));
    const verdict =
      unexpected.length === 0 && nowPassing.length === 0
        ? outcome.failed.length === 0
          ? 'passed'
          : `failed as expected (${outcome.failed.join(', ')})`
        : 'NOT AS EXPECTED';
    console.log(
      `${outcome.scenario}: ${outcome.passed.length} checks passed, ${outcome.failed.length} failed — ${verdict}`,
    );
    for (const id of unexpected) problems.push(`${outcome.scenario}: check ${id} failed`);
    for (const id of nowPassing)
      problems.push(`${outcome.scenario}: check ${id} no longer fails; remove it from expected-failures.ts`);
    if (unexpected.length > 0) console.log(outcome.output);
    if (unexpected.length === 0 && nowPassing.length === 0) {
      if (outcome.failed.length === 0) passed += 1;
      else failedAsListed += 1;
    }
  }
  if (problems.length === 0) rmSync(out, { recursive: true, force: true });
  else console.log(`\nNot as expected:\n  ${problems.join('\n  ')}\nResults kept in ${out}`);
  const notAsExpected = outcomes.length - passed - failedAsListed;
  console.log(
    `MCP conformance: ${passed} scenarios passed, ${failedAsListed} failed as listed in expected-failures.ts, ${notAsExpected} not as expected`,
  );
  return problems.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
