import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../local/holdfast-process.js';

async function runChild(): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'escaped-failures-child.ts')],
    {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const lines = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines };
}

describe('the holdfast process, when a failure escapes every handler', () => {
  it('logs an uncaught exception and an unhandled rejection and keeps running', async () => {
    const { code, lines } = await runChild();

    expect(lines.map((line) => [line.msg, (line.err as { message?: string } | undefined)?.message])).toEqual([
      ['unhandled promise rejection; still serving', 'rejected with nobody waiting'],
      ['uncaught exception; still serving', 'thrown from a timer'],
      ['still running', undefined],
    ]);
    expect(code).toBe(0);
  });
});
