import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** How the benchmark starts the app: the arguments after `node`, and the plugin it loads. */
export interface AppCommand {
  readonly args: readonly string[];
  readonly plugin: string;
  /** What the printed header calls it. */
  readonly label: string;
  /** Set as production sets it (the Dockerfile's `NODE_ENV=production`), or not at all. */
  readonly env: Readonly<Record<string, string>>;
  /** The checkout it runs from. */
  readonly cwd: string;
}

const here = import.meta.dirname;
const repoRoot = path.resolve(here, '..', '..');
const project = path.join(here, 'tsconfig.app.json');

/**
 * The app as production runs it (`node dist/main.js` in the image and the Procfile): compiled by `tsc`
 * into a cache folder beside the dependencies, the benchmark's plugin with it, so a developer's own
 * `dist/` is left as it was. `source` runs it as `npm start` does, under tsx, which loads TypeScript at
 * run time and keeps source maps.
 */
export function appCommand(kind: 'built' | 'source', checkout?: string): AppCommand {
  if (checkout !== undefined) {
    // Another checkout runs from source, under its own tsx: its build would share this one's cache folder.
    const root = path.resolve(checkout);
    return {
      args: ['--import', 'tsx', 'src/main.ts'],
      plugin: path.join(root, 'bench', 'load', 'noop-plugin.ts'),
      label: `node --import tsx src/main.ts in ${root}`,
      env: {},
      cwd: root,
    };
  }
  if (kind === 'source') {
    return {
      args: ['--import', 'tsx', 'src/main.ts'],
      plugin: path.join(here, 'noop-plugin.ts'),
      label: 'node --import tsx src/main.ts',
      env: {},
      cwd: repoRoot,
    };
  }
  const outDir = readOutDir();
  fs.rmSync(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', project], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) {
    throw new Error(
      `could not build the app (tsc -p ${path.relative(repoRoot, project)}):\n${build.stdout}${build.stderr}`,
    );
  }
  const main = path.join(outDir, 'src', 'main.js');
  return {
    args: [main],
    plugin: path.join(outDir, 'bench', 'load', 'noop-plugin.js'),
    label: `node ${path.relative(repoRoot, main)} (built with tsc)`,
    env: { NODE_ENV: 'production' },
    cwd: repoRoot,
  };
}

function readOutDir(): string {
  const config = JSON.parse(fs.readFileSync(project, 'utf8')) as { compilerOptions: { outDir: string } };
  return path.resolve(here, config.compilerOptions.outDir);
}
