/**
 * `npm run bench:load`: the real app in HTTP mode as a child process, under signed mentions (and Allow
 * clicks on a share of them) at a fixed rate over many threads, against a fake Slack Web API and a fake
 * OpenAI-compatible model with latency of their own, served on loopback by a second child process.
 * Bounded: a fixed number of mentions, then a bounded wait for the backlog. Everything the app talks to
 * listens on 127.0.0.1; the app's receiver listens where `PORT` puts it, as in production, and refuses
 * unsigned requests. An event the app does not acknowledge with a 200 is delivered again the way Slack
 * does it (`redeliverEvents`); every mention is owed exactly one answer.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixed, percentile } from '../percentile.js';
import { type AppProcess, freePort, startApp } from './app-process.js';
import { type AppCommand, appCommand } from './build-app.js';
import { loadConfig } from './load-config.js';
import { countBy, printResults } from './load-report.js';
import { mentionText } from './load-script.js';
import { redeliverEvents } from './redeliver-events.js';
import { sendMentions } from './send-mentions.js';
import { deliverToApp, mentionEvent, outcomeName, slackTimeoutMs } from './slack-requests.js';
import { startFakes } from './start-fakes.js';
import { watchApp } from './watch-app.js';

const config = loadConfig(process.env);
const channel = 'C0LOAD';
const approver = 'U0APPROVER';
const total = Math.min(config.maxMentions, Math.round(config.rate * config.seconds));

const threadOf = (n: number) => n % config.threads;
const seqOf = (n: number) => Math.floor(n / config.threads);
const mentionTs = (n: number) => `1767300000.${String(n).padStart(6, '0')}`;
// Spread evenly: mention n asks for approval when the running share steps up at n.
const asksApproval = (n: number) =>
  Math.floor((n + 1) * config.approvalShare) > Math.floor(n * config.approvalShare);

function printConfig(command: AppCommand): void {
  const rows: Array<[string, string]> = [
    ['app', command.label],
    ['offered load', `${config.rate} mentions/s over ${config.threads} threads for ${config.seconds} s`],
    ['mentions', `${total} (at most ${config.maxMentions}; ${config.maxInFlight} in flight at most)`],
    ['approval share', `${config.approvalShare} (Allow clicked ${config.clickDelayMs} ms after the card)`],
    ['latency', `Slack ${config.slackLatencyMs} ms per call, model ${config.modelLatencyMs} ms per call`],
    ['drain timeout', `${config.drainTimeoutSeconds} s`],
    ['HOLDFAST_DB_SYNCHRONOUS', config.synchronous],
    ...Object.entries(config.appEnv),
    ['cores', String(os.availableParallelism())],
  ];
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(32)}  ${value}\n`);
}

async function main(): Promise<void> {
  const command = appCommand(config.app);
  printConfig(command);
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-load-'));
  const logFile = path.join(workdir, 'app.log');
  const signingSecret = randomBytes(16).toString('hex');
  const port = await freePort();
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;

  const answers = new Map<string, { at: number; order: number }>();
  let allAnswered: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const fakes = await startFakes(
    {
      type: 'start',
      slackLatencyMs: config.slackLatencyMs,
      modelLatencyMs: config.modelLatencyMs,
      clickDelayMs: config.clickDelayMs,
      approver,
      eventsUrl,
      signingSecret,
    },
    (answer) => {
      answers.set(`${answer.thread}-${answer.seq}`, { at: answer.at, order: answers.size });
      // Every mention is owed one answer, however many times Slack had to deliver it.
      if (answers.size >= total) allAnswered();
    },
  );
  let app: AppProcess | undefined;
  try {
    const { ready } = fakes;
    app = await startApp({
      port,
      logFile,
      startTimeoutMs: 60_000,
      args: command.args,
      cpuProfileDir: config.cpuProfileDir,
      env: {
        ...command.env,
        ...config.appEnv,
        // What the benchmark itself needs wins over anything set in the shell.
        SLACK_BOT_TOKEN: ready.botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: ready.slackUrl,
        OPENAI_API_KEY: 'sk-load-bench',
        OPENAI_BASE_URL: ready.modelBaseUrl,
        OPENAI_MODEL: 'load-bench',
        HOLDFAST_DB: path.join(workdir, 'holdfast.db'),
        HOLDFAST_DB_SYNCHRONOUS: config.synchronous,
        HOLDFAST_WORKDIR: path.join(workdir, 'workspace'),
        HOLDFAST_APPROVERS: approver,
        HOLDFAST_PLUGINS: command.plugin,
      },
    });
    const watch = watchApp(app);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // idle /health samples first
    const cpuBefore = app.cpuSeconds() ?? 0;
    const loadStarted = performance.now();

    const post = async (n: number, retry?: { num: number; reason: string }) => {
      const thread = threadOf(n);
      const body = mentionEvent({
        teamId: ready.teamId,
        botUserId: ready.botUserId,
        channel,
        user: `U0REQ${String(thread).padStart(5, '0')}`,
        text: mentionText({ thread, seq: seqOf(n) }, asksApproval(n)),
        ts: mentionTs(n),
        threadTs: n < config.threads ? undefined : mentionTs(thread),
        eventId: `Ev0LOAD${n}`,
      });
      const headers = retry
        ? { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason }
        : undefined;
      return deliverToApp(eventsUrl, signingSecret, body, headers);
    };
    const redeliveries = redeliverEvents(post);
    const sent = await sendMentions({
      total,
      rate: config.rate,
      maxInFlight: config.maxInFlight,
      send: (n) => post(n),
      onAcked: (mention) => {
        if (outcomeName(mention.outcome) !== '200') redeliveries.failed(mention.n, mention.outcome);
      },
    });
    const lastSent = Math.max(...sent.mentions.map((mention) => mention.sentAt));
    const acked = sent.mentions.filter((mention) => outcomeName(mention.outcome) === '200');
    const drained = await Promise.race([
      answered.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), config.drainTimeoutSeconds * 1000)),
    ]);
    redeliveries.cancel();
    const loadWall = (performance.now() - loadStarted) / 1000;
    const cpu = ((app.cpuSeconds() ?? cpuBefore) - cpuBefore) / loadWall;
    const peakRss = app.memory()?.peakRssMb;
    await watch.stop();
    const exitedEarly = app.exitCode();
    await app.stop();
    const report = await fakes.report();

    const answerTimes = [...answers.values()].map((answer) => answer.at);
    const lastAnswer = Math.max(sent.startedAt, ...answerTimes);
    const loadSeconds = (lastSent - sent.startedAt) / 1000;
    const inWindow = answerTimes.filter((at) => at <= lastSent).length;
    // Order is defined where the app had stored a mention before the next one in its thread was sent.
    let orderedPairs = 0;
    let orderViolations = 0;
    for (const mention of acked) {
      if (mention.n < config.threads) continue;
      const previous = sent.mentions[mention.n - config.threads];
      if (!previous || outcomeName(previous.outcome) !== '200' || previous.ackedAt > mention.sentAt) continue;
      const before = answers.get(`${threadOf(previous.n)}-${seqOf(previous.n)}`);
      const after = answers.get(`${threadOf(mention.n)}-${seqOf(mention.n)}`);
      if (!before || !after) continue;
      orderedPairs += 1;
      if (after.order < before.order) orderViolations += 1;
    }
    // A delivery Slack gave up on counts as taking Slack's whole timeout: a p99 at 3,000 ms means more
    // than 1% of the first deliveries timed out.
    const acks = sent.mentions.map((mention) =>
      outcomeName(mention.outcome) === 'timeout' ? slackTimeoutMs : mention.ackedAt - mention.sentAt,
    );
    // Where the slow acks fall: the p99 of the mentions sent in each second of the load.
    const seconds = Math.ceil(config.seconds);
    const ackBySecond = Array.from({ length: seconds }, (): number[] => []);
    for (const [index, mention] of sent.mentions.entries()) {
      const second = Math.min(seconds - 1, Math.floor((mention.sentAt - sent.startedAt) / 1000));
      ackBySecond[second]?.push(acks[index] as number);
    }
    const ackP99BySecond = ackBySecond.map((samples) => fixed(percentile(samples, 99), 0));
    const healthSince = (from: number, to: number) =>
      watch.health.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.ms);
    const idleHealth = healthSince(0, loadStarted);
    const loadHealth = healthSince(loadStarted, Number.POSITIVE_INFINITY);
    const duplicates = report.duplicateKeys + report.duplicateAnswers + report.duplicateCards;
    const turnsPerSecond = inWindow / loadSeconds;
    const results = {
      measured_at: new Date().toISOString(),
      node: process.version,
      config: { ...config, mentions: total },
      mentions_sent: sent.mentions.length,
      mentions_acked: acked.length,
      first_deliveries: countBy(sent.mentions.map((mention) => outcomeName(mention.outcome))),
      redeliveries: redeliveries.sent(),
      mentions_never_acked: redeliveries.unacknowledged(),
      sent_per_s: fixed(sent.mentions.length / loadSeconds, 1),
      send_lag_p99_ms: fixed(
        percentile(
          sent.mentions.map((mention) => mention.lagMs),
          99,
        ),
        1,
      ),
      ack_p50_ms: fixed(percentile(acks, 50)),
      ack_p99_ms: fixed(percentile(acks, 99)),
      ack_p99_ms_by_second: ackP99BySecond,

      clicks: report.clickAcks.length,
      click_ack_p50_ms: fixed(percentile(report.clickAcks, 50)),
      click_ack_p99_ms: fixed(percentile(report.clickAcks, 99)),
      clicks_not_acked: report.clicksNotAcked,
      answers: answers.size,
      turns_per_s: fixed(turnsPerSecond, 1),
      turns_per_s_to_last_answer: fixed(answers.size / ((lastAnswer - sent.startedAt) / 1000), 1),
      drained,
      drain_s: drained ? fixed(Math.max(0, lastAnswer - lastSent) / 1000, 2) : null,
      unanswered: total - answers.size,
      refusals_ephemeral: report.ephemerals,
      failure_notices: report.failureNotices,
      duplicates,
      duplicate_keys: report.duplicateKeys,
      duplicate_answers: report.duplicateAnswers,
      duplicate_cards: report.duplicateCards,
      ordered_pairs_checked: orderedPairs,
      order_violations: orderViolations,
      app_rss_peak_mb: fixed(peakRss ?? Math.max(0, ...watch.rssMb), 1),
      app_rss_end_mb: fixed(watch.rssMb.at(-1) ?? Number.NaN, 1),
      app_cpu_cores: fixed(cpu, 2),
      // CPU per answer is what bounds throughput on a saturated machine, and it barely moves with noise.
      app_cpu_ms_per_answer: fixed((cpu * loadWall * 1000) / Math.max(1, answers.size), 2),
      health_idle_p50_ms: fixed(percentile(idleHealth, 50)),
      health_load_p50_ms: fixed(percentile(loadHealth, 50)),
      health_load_p99_ms: fixed(percentile(loadHealth, 99)),
      health_load_max_ms: fixed(Math.max(0, ...loadHealth)),
      model_requests: report.modelRequests,
      slack_calls: report.calls,
      slack_unknown_methods: report.unknownMethods,
      app_exited_early: exitedEarly ?? null,
      targets: {
        turns_per_s_at_least_150: turnsPerSecond >= 150,
        ack_p99_under_50_ms: percentile(acks, 99) < 50,
        nothing_lost: drained,
        no_duplicates: duplicates === 0,
        // Unknown when no pair of mentions in a thread had a defined order (every ack came too late).
        in_order: orderedPairs === 0 ? null : orderViolations === 0,
      },
    };
    printResults(results);
    const out = path.join(import.meta.dirname, '..', 'load-results.json');
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
    if (exitedEarly !== undefined) {
      process.stdout.write(`the app stopped on its own (${exitedEarly}); its log is ${logFile}\n`);
    } else if (!drained || process.env.BENCH_LOAD_KEEP === '1') {
      // What was not answered is worth a look: the app's database and log stay.
      process.stdout.write(`the app's database and log are kept in ${workdir}\n`);
    } else {
      fs.rmSync(workdir, { recursive: true, force: true });
    }
  } finally {
    await app?.stop();
    await fakes.stop();
  }
}

await main();
