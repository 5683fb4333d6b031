import { once } from 'node:events';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, projectRoot } from '../flows/local/holdfast-process.js';
import { eventually } from '../flows/slack/slack-harness.js';
import { runToEnd, spawnHoldfast } from '../flows/startup/run-holdfast.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * The production start: `npm run build`, then plain `node dist/main.js` with nothing in between, laid out
 * as the Dockerfile's runtime stage lays it out (package.json, dist, node_modules). A platform's stop
 * signal then reaches holdfast itself.
 */
describe('the compiled build', () => {
  it('starts with node alone, drains on SIGTERM and exits 0', async () => {
    const app = tempDir('holdfast-build-');
    const built = await runToEnd({
      command: ['npm', 'run', '--silent', 'build', '--', '--outDir', app.file('dist')],
      env: {},
      timeoutMs: 120_000,
    });
    expect(built.stdout + built.stderr).toBe('');
    expect(built.code).toBe(0);
    writeFileSync(app.file('package.json'), JSON.stringify({ type: 'module' }));
    symlinkSync(path.join(projectRoot, 'node_modules'), app.file('node_modules'));

    const data = tempDir('holdfast-prod-');
    const env = { HOLDFAST_DB: data.file('holdfast.db'), HOLDFAST_WORKDIR: data.file('work') };
    const child = spawnHoldfast({
      command: [process.execPath, app.file('dist/main.js')],
      env: { ...env, PORT: String(await freePort()) },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = once(child, 'exit');
    await eventually(
      () => output.includes('holdfast local workspace: http://'),
      `a start:\n${output}`,
      30_000,
    );

    child.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const logged = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(logged).toEqual(
      expect.arrayContaining([
        'holdfast is running',
        'stopping',
        'holdfast stopped: no new requests, turns drained, database closed',
      ]),
    );

    // A TypeScript plugin is refused with what to do, since plain node does not load TypeScript.
    const plugin = await runToEnd({
      command: [process.execPath, app.file('dist/main.js')],
      env: {
        ...env,
        PORT: '0',
        HOLDFAST_PLUGINS: path.join(projectRoot, 'examples', 'plugins', 'incidents.ts'),
      },
    });
    expect(plugin.code).toBe(1);
    expect(plugin.stderr).toContain(
      'it is TypeScript, which `node dist/main.js` does not load. Compile it to JavaScript and list the .js file in HOLDFAST_PLUGINS, or start with `node --import tsx dist/main.js`',
    );
  });
});
