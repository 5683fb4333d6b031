import { pathToFileURL } from 'node:url';
import { auditCommand } from './audit/audit-command.js';
import { type Config, loadConfig } from './config.js';
import { createRedactor } from './secrets/index.js';
import { describeStartupFailure } from './startup/describe-startup-failure.js';
import { doctorCommand } from './startup/doctor-command.js';
import type { Holdfast } from './startup/holdfast.js';
import { keepServingAfterEscapedFailures } from './startup/keep-serving.js';
import { startHoldfast } from './startup/start-holdfast.js';

export type { Holdfast, HoldfastOverrides } from './startup/holdfast.js';
export { keepServingAfterEscapedFailures } from './startup/keep-serving.js';
export { startHoldfast } from './startup/start-holdfast.js';

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'doctor') {
    process.exitCode = await doctorCommand(process.env, process.cwd());
    return;
  }
  if (command === 'audit') {
    const io = { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
    process.exitCode = await auditCommand(process.argv.slice(3), io);
    return;
  }
  if (command !== undefined) {
    process.stderr.write(
      `holdfast: unknown command "${command}". Usage: holdfast [doctor | audit export|verify]\n`,
    );
    process.exit(2);
  }
  let holdfast: Holdfast;
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, process.cwd());
    holdfast = await startHoldfast(config);
  } catch (error) {
    const level = config?.logLevel ?? process.env.HOLDFAST_LOG_LEVEL?.trim().toLowerCase();
    const message = describeStartupFailure(error, { debug: level === 'debug' || level === 'trace' });
    // A failing client can put a credential in its message; stderr is a log like any other.
    const { redact } = createRedactor({ secrets: config?.secrets ?? [] });
    process.stderr.write(`holdfast could not start:\n${redact(message)}\n`);
    process.exit(1);
  }
  keepServingAfterEscapedFailures(process, holdfast.logger);
  void holdfast.damaged.then(async (error) => {
    process.stderr.write(`holdfast is stopping:\n${describeStartupFailure(error, { debug: false })}\n`);
    await holdfast.stop();
    process.exit(1);
  });
  if (holdfast.localUrl)
    process.stdout.write(
      `\nholdfast local workspace: ${holdfast.localUrl}\n` +
        'Open this URL: its token signs your browser in, so no other web page can post or approve as you.\n\n',
    );
  let stopping = false;
  // The platform's stop signal reaches this process directly (`node dist/main.js`, no npm or tsx in
  // between): requests stop, running turns get their grace period, the database closes, then exit 0.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    holdfast.logger.info({ signal }, 'stopping');
    await holdfast.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
