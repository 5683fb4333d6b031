import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../test/flows/local/holdfast-process.js';
import { tempDir } from '../../test/support/temp-dir.js';

/** Runs `body` as an ES module in a fresh node (TypeScript through tsx); returns the pg modules it loaded. */
function pgModulesLoadedBy(body: string): string[] {
  const script = `
    import { createRequire } from 'node:module';
    ${body}
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify(loaded.filter((file) => /node_modules\\/pg(-[a-z-]+)?\\//.test(file))));
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[];
}

describe('openStore', () => {
  it('never loads the PostgreSQL driver for a SQLite database', () => {
    const dir = tempDir('holdfast-open-store-');
    const loaded = pgModulesLoadedBy(`
      await import('./src/main.ts');
      const { openStore } = await import('./src/startup/open-store.ts');
      const { loadConfig } = await import('./src/config.ts');
      const { default: pino } = await import('pino');
      const config = loadConfig({ HOLDFAST_DB: ${JSON.stringify(dir.file('holdfast.db'))} }, process.cwd());
      const { store } = await openStore(config, { now: Date.now, logger: pino({ level: 'silent' }) });
      await store.turns.get('turn-1');
      store.close();
    `);
    expect(loaded).toEqual([]);
  });

  it('is seen to load it when the PostgreSQL adapter is imported (the check above can fail)', () => {
    const loaded = pgModulesLoadedBy(`await import('./src/store/postgres/create-postgres-store.ts');`);
    expect(loaded.length).toBeGreaterThan(0);
  });
});
