/**
 * The fake Slack Web API and the fake model, in a process of their own so that serving them does not
 * delay the benchmark's sender or its clock. Slack's side of the approvals is here too: when a card
 * lands, the approver taps Allow (a signed `block_actions` request to the app) after a delay drawn for
 * that mention.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type FromFakes, type ToFakes, toFakesSchema } from './fakes-protocol.js';
import { startLoadModelApi } from './load-model-api.js';
import { answerFor, epochMs, parseAnswer, parseMention, seededUniform } from './load-script.js';
import { startLoadSlackApi } from './load-slack-api.js';
import { createTimeline } from './load-timeline.js';
import { allowClick, deliverToApp, outcomeName } from './slack-requests.js';

const send = (message: FromFakes) => process.send?.(message);

async function start(options: Extract<ToFakes, { type: 'start' }>): Promise<void> {
  const clickAcks: number[] = [];
  let clicksNotAcked = 0;
  const timeline = createTimeline();
  const draw = (key: string, range: { min: number; max: number }) =>
    seededUniform(options.seed, key, range.min, range.max);
  const slack = await startLoadSlackApi({
    latencyMs: options.slackLatencyMs,
    rateLimits: options.slackLimits,
    parseAnswer,
    timeline,
    now: epochMs,
    onAnswer: (answer) => send({ type: 'answer', ...answer, at: epochMs() }),
    onCard(card) {
      void (async () => {
        await sleep(draw(`click ${card.marker}`, options.clickDelayMs));
        const started = performance.now();
        timeline.mark(card.marker, 'click', epochMs());
        const body = allowClick({
          teamId: slack.teamId,
          user: options.approver,
          card,
          responseUrl: `${slack.origin}/respond/click`,
        });
        // Past Slack's three seconds the approver sees an error, and Slack does not send the click again.
        const outcome = await deliverToApp(options.eventsUrl, options.signingSecret, body);
        clickAcks.push(performance.now() - started);
        if (outcomeName(outcome) !== '200') clicksNotAcked += 1;
      })();
    },
  });
  const model = await startLoadModelApi({
    latencyMs: (marker, afterTool) =>
      draw(`model ${marker ?? 'unknown'} ${afterTool ? 'after' : 'first'}`, options.modelLatencyMs),
    onReply: (marker, reply) => timeline.mark(marker, reply, epochMs()),
    toolName: 'bench_noop',
    parseMention,
    answerFor,
  });
  process.on('message', (raw) => {
    const message = toFakesSchema.parse(raw);
    if (message.type !== 'report') return;
    const report = slack.report((marker) => timeline.get(marker)?.click !== undefined);
    send({
      type: 'report',
      report: {
        ...report,
        calls: { ...report.calls },
        unknownMethods: [...report.unknownMethods],
        timeline: timeline.all(),
        modelRequests: model.requests(),
        clickAcks: [...clickAcks],
        clicksNotAcked,
      },
    });
  });
  process.once('disconnect', () => {
    void Promise.all([slack.close(), model.close()]).then(() => process.exit(0));
  });
  send({
    type: 'ready',
    slackUrl: slack.url,
    slackOrigin: slack.origin,
    botToken: slack.botToken,
    botUserId: slack.botUserId,
    teamId: slack.teamId,
    modelBaseUrl: model.baseUrl,
  });
}

process.once('message', (raw) => {
  const message = toFakesSchema.parse(raw);
  if (message.type === 'start') void start(message);
});
