import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixed, percentile } from '../percentile.js';
import { type AppProcess, freePort, startApp } from './app-process.js';
import type { AppCommand } from './build-app.js';
import type { FakesReport } from './fakes-protocol.js';
import { methodFigures, phaseFigures, settled, sustainable } from './load-analysis.js';
import type { LoadConfig } from './load-config.js';
import { countBy, type Results } from './load-report.js';
import { epochMs, mentionText } from './load-script.js';
import type { Workload } from './load-workload.js';
import { redeliverEvents } from './redeliver-events.js';
import { sendMentions } from './send-mentions.js';
import { deliverToApp, mentionEvent, outcomeName, slackTimeoutMs } from './slack-requests.js';
import { startFakes } from './start-fakes.js';
import { watchApp } from './watch-app.js';

const approver = 'U0APPROVER';

/**
 * One run of the workload against a fresh app, database and fakes: `slackLimits` says whether the fake
 * Slack enforces the published limits. Bounded: the mentions of the workload, then at most the drain
 * timeout for the answers, then at most the settle time for the final reactions, streams and rewrites.
 */
export async function runLoad(
  config: LoadConfig,
  command: AppCommand,
  workload: Workload,
  slackLimits: boolean,
): Promise<{ results: Results; workdir: string; logFile: string; exitedEarly: number | string | undefined }> {
  const total = workload.mentions.length;
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
      slackLimits,
      modelLatencyMs: config.modelLatencyMs,
      clickDelayMs: config.clickDelayMs,
      seed: config.seed,
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
      cwd: command.cwd,
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
        BENCH_LOAD_TOOL_START_URL: `${ready.slackOrigin}/bench/tool-start`,
      },
    });
    const watch = watchApp(app);
    await sleep(1_000); // idle /health samples first
    const cpuBefore = app.cpuSeconds() ?? 0;
    const loadStarted = performance.now();

    const post = async (n: number, retry?: { num: number; reason: string }) => {
      const plan = workload.mentions[n];
      if (!plan) throw new Error(`no mention ${n} in the workload`);
      const body = mentionEvent({
        teamId: ready.teamId,
        botUserId: ready.botUserId,
        channel: plan.channel,
        user: `U0REQ${String(plan.thread % 10_000).padStart(5, '0')}`,
        text: mentionText(plan, plan.approval),
        ts: plan.ts,
        threadTs: plan.threadTs,
        eventId: `Ev0LOAD${n}`,
      });
      const headers = retry
        ? { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason }
        : undefined;
      return deliverToApp(eventsUrl, signingSecret, body, headers);
    };
    const redeliveries = redeliverEvents(post);
    const sent = await sendMentions({
      atMs: workload.mentions.map((mention) => mention.atMs),
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
      sleep(config.drainTimeoutSeconds * 1000).then(() => false as const),
    ]);
    const answersDone = epochMs();
    // What follows the answers (the final reaction, the stream's end, the card's rewrite) gets a bounded while.
    let report: FakesReport = await fakes.report();
    const settleBy = performance.now() + config.settleSeconds * 1000;
    while (!settled(workload, report) && performance.now() < settleBy) {
      await sleep(1_000);
      report = await fakes.report();
    }
    const settleSeconds = (epochMs() - answersDone) / 1000;
    redeliveries.cancel();
    const loadWall = (performance.now() - loadStarted) / 1000;
    const cpu = ((app.cpuSeconds() ?? cpuBefore) - cpuBefore) / loadWall;
    const peakRss = app.memory()?.peakRssMb;
    await watch.stop();
    const exitedEarly = app.exitCode();
    await app.stop();

    const answerTimes = [...answers.values()].map((answer) => answer.at);
    const lastAnswer = Math.max(sent.startedAt, ...answerTimes);
    const loadSeconds = Math.max(0.001, (lastSent - sent.startedAt) / 1000);
    const inWindow = answerTimes.filter((at) => at <= lastSent).length;
    // Flat: order is defined where the app had stored a mention before the next one in its thread was sent.
    const flatOrder = new Map<number, boolean>();
    let orderedPairs = 0;
    let orderViolations = 0;
    if (!workload.threadPerMention) {
      const threads = config.threads;
      for (const mention of acked) {
        if (mention.n < threads) continue;
        const previous = sent.mentions[mention.n - threads];
        if (!previous || outcomeName(previous.outcome) !== '200' || previous.ackedAt > mention.sentAt)
          continue;
        const before = answers.get(`${previous.n % threads}-${Math.floor(previous.n / threads)}`);
        const after = answers.get(`${mention.n % threads}-${Math.floor(mention.n / threads)}`);
        if (!before || !after) continue;
        orderedPairs += 1;
        flatOrder.set(mention.n, after.order < before.order);
        if (after.order < before.order) orderViolations += 1;
      }
    }
    // A delivery Slack gave up on counts as taking Slack's whole timeout.
    const acks = sent.mentions.map((mention) =>
      outcomeName(mention.outcome) === 'timeout' ? slackTimeoutMs : mention.ackedAt - mention.sentAt,
    );
    // Where the slow acks fall: the p99 of the mentions sent in each second of the load.
    const seconds = Math.max(1, Math.ceil(loadSeconds));
    const ackBySecond = Array.from({ length: seconds }, (): number[] => []);
    for (const [index, mention] of sent.mentions.entries()) {
      const second = Math.min(seconds - 1, Math.floor((mention.sentAt - sent.startedAt) / 1000));
      ackBySecond[second]?.push(acks[index] as number);
    }
    const healthSince = (from: number, to: number) =>
      watch.health.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.ms);
    const idleHealth = healthSince(0, loadStarted);
    const loadHealth = healthSince(loadStarted, Number.POSITIVE_INFINITY);
    const duplicates = report.duplicateKeys + report.duplicateAnswers + report.duplicateCards;
    const methods = methodFigures(report, total, workload.channels);
    const phases = phaseFigures({
      workload,
      sent: sent.mentions,
      startedAt: sent.startedAt,
      lastSent,
      report,
      flatOrder,
    });
    const budget = sustainable(methods);
    const reactionsWrong = Object.values(phases).reduce((sum, phase) => sum + phase.final_reaction_wrong, 0);
    const turnsPerSecond = inWindow / loadSeconds;
    const results: Results = {
      measured_at: new Date().toISOString(),
      node: process.version,
      workload: workload.label,
      slack_limits: slackLimits ? 'on (published per-method limits, 429 with Retry-After)' : 'off',
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
      ack_p99_ms_by_second: ackBySecond.map((samples) => fixed(percentile(samples, 99), 0)),
      clicks: report.clickAcks.length,
      click_ack_p50_ms: fixed(percentile(report.clickAcks, 50)),
      click_ack_p99_ms: fixed(percentile(report.clickAcks, 99)),
      clicks_not_acked: report.clicksNotAcked,
      answers: answers.size,
      turns_per_s: fixed(turnsPerSecond, 1),
      turns_per_s_to_last_answer: fixed(
        answers.size / Math.max(0.001, (lastAnswer - sent.startedAt) / 1000),
        1,
      ),
      drained,
      drain_s: drained ? fixed(Math.max(0, lastAnswer - lastSent) / 1000, 2) : null,
      settle_s: fixed(settleSeconds, 1),
      unanswered: total - answers.size,
      refusals_ephemeral: report.ephemerals,
      failure_notices: report.failureNotices,
      duplicates,
      duplicate_keys: report.duplicateKeys,
      duplicate_answers: report.duplicateAnswers,
      duplicate_cards: report.duplicateCards,
      ordered_pairs_checked: orderedPairs,
      order_violations: orderViolations,
      streams_left_open: report.streamsOpen,
      clicked_cards_left_with_buttons: report.clickedCardsWithButtons,
      final_reactions_wrong: reactionsWrong,
      methods,
      phases,
      sustainable_turns_per_min: budget,
      app_rss_peak_mb: fixed(peakRss ?? Math.max(0, ...watch.rssMb), 1),
      app_rss_end_mb: fixed(watch.rssMb.at(-1) ?? Number.NaN, 1),
      app_cpu_cores: fixed(cpu, 2),
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
        ...(workload.threadPerMention
          ? {
              // Issue 29's target: a workspace sustains 60 turns a minute, what must arrive first of all.
              must_arrive_sustains_60_turns_per_min: (budget.must_arrive?.turns_per_min ?? 0) >= 60,
              all_calls_sustain_60_turns_per_min: (budget.all_calls?.turns_per_min ?? 0) >= 60,
            }
          : {
              turns_per_s_at_least_150: turnsPerSecond >= 150,
              ack_p99_under_50_ms: percentile(acks, 99) < 50,
            }),
        nothing_lost: drained,
        no_duplicates: duplicates === 0,
        in_order: Object.values(phases).every((phase) => phase.order_checked === 0)
          ? null
          : Object.values(phases).every((phase) => phase.out_of_order === 0),
        final_reactions_right: reactionsWrong === 0,
        streams_closed: report.streamsOpen === 0,
        no_call_inside_retry_after: Object.values(methods).every((m) => m.sent_inside_retry_after === 0),
      },
    };
    return { results, workdir, logFile, exitedEarly };
  } finally {
    await app?.stop();
    await fakes.stop();
  }
}
