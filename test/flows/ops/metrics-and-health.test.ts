import { Agent, get as httpGet } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { BOT_SCOPES } from '../../../src/slack/web-api/bot-scopes.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  countingShellTool,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from '../slack/slack-harness.js';
import { startSocketModeServer } from '../slack/socket-mode-server.js';
import { runToEnd, takenPort } from '../startup/run-holdfast.js';

/** One sample of a metric, by its exact label set as Prometheus prints it (`{outcome="allowed"}`). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** What the server says of idle connections, asked over a kept-alive one. */
async function keepAliveHeader(url: string): Promise<string | undefined> {
  const agent = new Agent({ keepAlive: true });
  try {
    return await new Promise((resolve, reject) => {
      httpGet(url, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.headers['keep-alive']?.toString()));
      }).on('error', reject);
    });
  } finally {
    agent.destroy();
  }
}

async function get(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

function baseUrl(slack: SlackHarness): string {
  return new URL(slack.eventsUrl).origin;
}

describe('metrics', () => {
  it('counts a whole approval cycle through the real receiver, scraped from the events server', async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
      reply.text('Done.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    const metrics = () => get(`${baseUrl(slack)}/metrics`).then((response) => response.text);

    const before = await metrics();
    expect(sample(before, 'holdfast_approvals_pending')).toBe(0);
    expect(sample(before, 'holdfast_approval_decisions_total', '{outcome="allowed"}')).toBeUndefined();

    slack.api.failNext('users.info', { type: 'rate-limited', retryAfterSeconds: 0 });
    // The bell (only nice to have: dropped), then the final tick (retried once, then refused).
    slack.api.failNext('reactions.add', { type: 'rate-limited', retryAfterSeconds: 0 }, 2);
    slack.api.failNext('reactions.add', { type: 'error', error: 'channel_not_found' });
    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();
    const waiting = await metrics();
    expect(sample(waiting, 'holdfast_approvals_pending')).toBe(1);
    expect(sample(waiting, 'holdfast_approvals_requested_total', '{tool="ops_shell"}')).toBe(1);
    expect(sample(waiting, 'holdfast_turns_total', '{outcome="awaiting_approval"}')).toBe(1);
    expect(sample(waiting, 'holdfast_model_requests_total', '{outcome="ok"}')).toBe(1);

    await slack.click('allow', card, { user: people.bob });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    const after = await metrics();
    expect(sample(after, 'holdfast_approvals_pending')).toBe(0);
    expect(sample(after, 'holdfast_approval_decisions_total', '{outcome="allowed"}')).toBe(1);
    expect(sample(after, 'holdfast_approval_decision_seconds_count', '{outcome="allowed"}')).toBe(1);
    expect(sample(after, 'holdfast_tool_runs_total', '{tool="ops_shell",outcome="succeeded"}')).toBe(1);
    expect(sample(after, 'holdfast_tool_run_seconds_count', '{tool="ops_shell"}')).toBe(1);
    expect(sample(after, 'holdfast_turns_total', '{outcome="completed"}')).toBe(1);
    expect(sample(after, 'holdfast_model_requests_total', '{outcome="ok"}')).toBe(2);
    expect(sample(after, 'holdfast_model_request_seconds_count', '{outcome="ok"}')).toBe(2);
    expect(sample(after, 'holdfast_outbox_pending')).toBe(0);
    // users.info was rate limited before the mention was stored, and not retried: the ack does not wait.
    // The bell was rate limited and dropped; the final reaction was rate limited, retried, then refused.
    expect(sample(after, 'holdfast_slack_api_rate_limited_total')).toBe(3);
    expect(sample(after, 'holdfast_slack_api_retries_total')).toBe(1);
    expect(
      sample(after, 'holdfast_slack_api_errors_total', '{method="users.info",error="ratelimited"}'),
    ).toBe(1);
    expect(
      sample(after, 'holdfast_slack_api_errors_total', '{method="reactions.add",error="channel_not_found"}'),
    ).toBe(1);
  });
});

describe('health and readiness', () => {
  it('answers /health and /ready on the events server in HTTP mode, and /ready fails once the database is closed', async () => {
    const clock = createTestClock(Date.now());
    const slack = await startSlackHarness({ model: new ScriptedChatModel([]), now: clock.now });

    expect(await get(`${baseUrl(slack)}/health`)).toMatchObject({ status: 200, text: '{"ok":true}' });
    const ready = await get(`${baseUrl(slack)}/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ ready: true, checks: { database: 'ok', slack: 'ok' } });

    slack.holdfast.runtime.store.close();
    clock.advance(5_000);
    const closed = await get(`${baseUrl(slack)}/ready`);
    expect(closed.status).toBe(503);
    expect(JSON.parse(closed.text)).toEqual({
      ready: false,
      checks: { database: { error: expect.stringMatching(/not open/) }, slack: 'ok' },
    });
    expect((await get(`${baseUrl(slack)}/health`)).status).toBe(200);
  });

  it('keeps idle connections open longer than a load balancer does, on the events server and the health listener', async () => {
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([]),
      env: { HOLDFAST_HEALTH_PORT: '0' },
    });
    const opsUrl = slack.holdfast.opsUrl;
    if (!opsUrl) throw new Error('no health listener');
    // A proxy that reuses a connection the app has just closed for idleness answers its client 502.
    for (const url of [`${baseUrl(slack)}/health`, `${opsUrl}/health`]) {
      expect(await keepAliveHeader(url)).toBe('timeout=65');
    }
  });

  it('answers /metrics only to a scrape bearing HOLDFAST_METRICS_TOKEN, on both listeners, and never logs it', async () => {
    const token = 'scrape-4f1c9a7e2b6d0a';
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([]),
      env: { HOLDFAST_HEALTH_PORT: '0', HOLDFAST_METRICS_TOKEN: token },
    });
    const opsUrl = slack.holdfast.opsUrl;
    if (!opsUrl) throw new Error('no health listener');
    for (const url of [`${baseUrl(slack)}/metrics`, `${opsUrl}/metrics`]) {
      const scrape = (authorization?: string) =>
        fetch(url, authorization ? { headers: { authorization } } : {}).then(async (response) => ({
          status: response.status,
          text: await response.text(),
        }));
      for (const refused of [undefined, `Bearer ${token}x`, `Bearer ${token.slice(1)}`, token]) {
        expect(await scrape(refused)).toEqual({ status: 401, text: 'unauthorized\n' });
      }
      const allowed = await scrape(`Bearer ${token}`);
      expect(allowed.status).toBe(200);
      expect(allowed.text).toContain('holdfast_approvals_pending');
    }
    // Health and readiness stay open: probes carry no credentials.
    expect((await get(`${baseUrl(slack)}/health`)).status).toBe(200);
    expect(JSON.stringify(slack.log.entries)).not.toContain(token);
  });

  it('caches readiness answers, so a probe every second is not a Slack call every second', async () => {
    const clock = createTestClock(Date.now());
    const slack = await startSlackHarness({ model: new ScriptedChatModel([]), now: clock.now });
    await get(`${baseUrl(slack)}/ready`);
    const asked = slack.api.callsTo('auth.test').length;
    clock.advance(1_000);
    await get(`${baseUrl(slack)}/ready`);
    expect(slack.api.callsTo('auth.test')).toHaveLength(asked);
    clock.advance(5_000);
    await get(`${baseUrl(slack)}/ready`);
    expect(slack.api.callsTo('auth.test')).toHaveLength(asked + 1);
  });

  it('serves /health, /ready and /metrics on their own listener in Socket Mode, and says when Slack is unreachable', async () => {
    const socketServer = await startSocketModeServer();
    const clock = createTestClock(Date.now());
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([]),
      now: clock.now,
      beforeStart: socketServer.beforeStart,
    });
    const opsUrl = slack.holdfast.opsUrl;
    if (!opsUrl) throw new Error('no health listener in Socket Mode');

    expect(await get(`${opsUrl}/health`)).toMatchObject({ status: 200, text: '{"ok":true}' });
    expect((await get(`${opsUrl}/ready`)).status).toBe(200);
    const metrics = await get(`${opsUrl}/metrics`);
    expect(metrics.type).toMatch(/^text\/plain/);
    expect(sample(metrics.text, 'holdfast_approvals_pending')).toBe(0);
    expect((await get(`${opsUrl}/slack/events`)).status).toBe(404);

    slack.api.failNext('auth.test', { type: 'http', status: 503 });
    clock.advance(5_000);
    const unreachable = await get(`${opsUrl}/ready`);
    expect(unreachable.status).toBe(503);
    expect(JSON.parse(unreachable.text)).toMatchObject({
      ready: false,
      checks: { database: 'ok', slack: { error: expect.any(String) } },
    });
  });
});

describe('the health listener at start-up', () => {
  it('names HOLDFAST_HEALTH_PORT when its port is taken, and exits 1', async () => {
    const dir = tempDir('holdfast-health-port-');
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES });
    onTestFinished(() => api.close());
    const port = await takenPort();

    const run = await runToEnd({
      env: {
        SLACK_BOT_TOKEN: api.botToken,
        SLACK_APP_TOKEN: api.appToken,
        SLACK_API_URL: api.url,
        HOLDFAST_HEALTH_PORT: String(port),
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
      },
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `port: HOLDFAST_HEALTH_PORT=${port} (health and metrics) is already in use by another process. Stop that process (\`lsof -i :${port}\` or \`ss -ltnp\` shows which), or set HOLDFAST_HEALTH_PORT to a free port.`,
    );
    expect(api.callsTo('apps.connections.open')).toHaveLength(0);
  });
});
