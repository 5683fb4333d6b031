import { WebClient } from '@slack/web-api';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type LocalWorkspace, startLocalWorkspace } from '../../../src/local/start-local-workspace.js';
import { createSlackWebApi } from '../../../src/slack/web-api/slack-web-api.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';

const botToken = 'xoxb-local-lookup-test';

/**
 * Local mode runs holdfast's own Slack client against the workspace, so a post a crash left unrecorded
 * must be found there the way it is in Slack: by the delivery key in its metadata, across a restart.
 */
describe('the local workspace, when holdfast looks for a post it never heard back about', () => {
  it('finds a thread reply and a direct message by their delivery keys, after a restart too', async () => {
    const dir = tempDir('holdfast-lookup-');
    const { logger } = createTestLogger();
    const start = () =>
      startLocalWorkspace({
        port: 0,
        databasePath: dir.file('local-workspace.db'),
        signingSecret: 'l'.repeat(32),
        botToken,
        deliverTo: 'http://127.0.0.1:9/slack/events',
        modelLabel: 'test',
        logger,
        now: Date.now,
      });
    const portTo = (workspace: LocalWorkspace) => {
      onTestFinished(() => workspace.close());
      return createSlackWebApi({
        client: new WebClient(botToken, { slackApiUrl: workspace.apiUrl, retryConfig: { retries: 0 } }),
        logger,
      });
    };
    const first = await start();
    const slack = portTo(first);

    const root = await slack.postMessage({ channel: 'C0OPS', text: 'the thread' });
    await slack.postMessage({
      channel: 'C0OPS',
      threadTs: root.ts,
      text: 'part one',
      deliveryKey: 'answer:t1#0',
    });
    const second = await slack.postMessage({
      channel: 'C0OPS',
      threadTs: root.ts,
      text: 'part two',
      deliveryKey: 'answer:t1#1',
    });
    const direct = await slack.postMessage({ channel: 'U0ALICE', text: 'a notice', deliveryKey: 'dm:t1#0' });
    await first.close();

    const again = portTo(await start());
    const dm = await again.openDirectMessage('U0ALICE');
    const since = String(Math.floor(Number(direct.ts)) - 60);

    expect(
      await again.findDelivery({ channel: 'C0OPS', threadTs: root.ts, deliveryKey: 'answer:t1#1' }),
    ).toEqual({ channel: 'C0OPS', ts: second.ts });
    expect(
      await again.findDelivery({ channel: 'C0OPS', threadTs: root.ts, deliveryKey: 'answer:t1#2' }),
    ).toBeUndefined();
    expect(dm).toBe(direct.channel);
    expect(await again.findDelivery({ channel: dm, oldest: since, deliveryKey: 'dm:t1#0' })).toEqual({
      channel: dm,
      ts: direct.ts,
    });
    // How a clicked card whose ts was never recorded is read back: the one message at its ts.
    expect(await again.deliveryKeyAt({ channel: 'C0OPS', threadTs: root.ts, ts: second.ts })).toBe(
      'answer:t1#1',
    );
    expect(await again.deliveryKeyAt({ channel: dm, ts: direct.ts })).toBe('dm:t1#0');
    expect(await again.deliveryKeyAt({ channel: 'C0OPS', threadTs: root.ts, ts: root.ts })).toBeUndefined();
  });
});
