import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestLogger } from '../../../test/support/test-logger.js';
import { listenFailure } from '../../startup/check-port.js';
import { StartupCheckError } from '../../startup/startup-check.js';
import { openDatabase } from '../../store/open-database.js';
import { IntakeThread, type IntakeThreadOptions } from './intake-thread.js';

function options(databaseFile: string, port: number): IntakeThreadOptions {
  return {
    port,
    forwardPort: 1,
    databaseFile,
    synchronous: 'FULL',
    signingSecret: 'a'.repeat(32),
    botUserId: 'U0HOLDFAST',
    secrets: [],
    logger: createTestLogger().logger,
    onKept: () => undefined,
  };
}

describe('IntakeThread', () => {
  it('fails to start on a port in use with the error start-up turns into a named problem', async () => {
    const dir = tempDir('holdfast-intake-');
    openDatabase(dir.file('holdfast.db')).close();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    onTestFinished(() => void taken.close());
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;

    const error = await IntakeThread.start(options(dir.file('holdfast.db'), port)).catch(
      (failure: unknown) => failure,
    );

    expect(error).toMatchObject({ code: 'EADDRINUSE', syscall: 'listen' });
    const named = listenFailure(error, { port, purpose: 'Slack events' });
    expect(named).toBeInstanceOf(StartupCheckError);
    expect(String((named as Error).message)).toContain(`PORT=${port} (Slack events) is already in use`);
  });

  it('stops when told: its port is free again and `delivered` answers at once', async () => {
    const dir = tempDir('holdfast-intake-');
    openDatabase(dir.file('holdfast.db')).close();

    const thread = await IntakeThread.start(options(dir.file('holdfast.db'), 0));
    await thread.delivered();
    await thread.stop();
    await thread.delivered();

    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(thread.port, '0.0.0.0', resolve);
    });
    again.close();
  });
});
