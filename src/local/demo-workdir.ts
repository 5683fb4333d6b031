import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What a fresh local workspace's working directory holds, so "list files" and "read …" have answers. */
const demoWorkdirFiles: Readonly<Record<string, string>> = {
  'README.md': [
    '# Demo working directory',
    '',
    'holdfast made these files for local mode: `run_shell` runs here, and `read_file` and `list_files`',
    'read from here. Nothing in them is real; change or delete them as you like.',
    '',
  ].join('\n'),
  'notes.txt': [
    'On-call notes (demo)',
    '- web: restart with `systemctl restart web` only after checking logs/app.log',
    '- api: deploys go through holdfast; ask in #ops',
    '',
  ].join('\n'),
  'logs/app.log': [
    '2026-01-01T03:00:00Z INFO  web started on :8080',
    '2026-01-01T03:12:41Z WARN  slow response from db (1.8s)',
    '2026-01-01T03:13:02Z ERROR upstream timeout on /checkout',
    '',
  ].join('\n'),
};

/**
 * Fills an empty (or missing) working directory with the demo files. A directory that holds anything
 * is left exactly as it is: these are examples, never written over someone's files.
 */
export function seedDemoWorkdir(workdir: string): boolean {
  if (existsSync(workdir) && readdirSync(workdir).length > 0) return false;
  for (const [name, content] of Object.entries(demoWorkdirFiles)) {
    const file = path.join(workdir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content, { flag: 'wx' });
  }
  return true;
}
