/**
 * `npm run bench:load`: the real app in HTTP mode as a child process, under signed mentions (and Allow
 * clicks on a share of them), against a fake Slack Web API that enforces Slack's published per-method
 * rate limits (`BENCH_LOAD_SLACK_LIMITS=off` lifts them) and a fake OpenAI-compatible model, served on
 * loopback by a second child process. The default workload is a busy workspace (load-workload.ts);
 * `BENCH_LOAD_WORKLOAD=flat` is the old flat high rate. `BENCH_LOAD_COMPARE=1` runs the workload twice,
 * limits on and then off, and prints both side by side. Bounded: a fixed number of mentions, then a
 * bounded wait for the backlog and for what follows it. Everything the app talks to listens on 127.0.0.1;
 * the app's receiver listens where `PORT` puts it, as in production, and refuses unsigned requests. An
 * event the app does not acknowledge with a 200 is delivered again the way Slack does it
 * (`redeliverEvents`); every mention is owed exactly one answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AppCommand, appCommand } from './build-app.js';
import { loadConfig } from './load-config.js';
import { printTable, type Results } from './load-report.js';
import { runLoad } from './load-run.js';
import { planWorkload, type Workload } from './load-workload.js';

const config = loadConfig(process.env);
const workload = planWorkload(config);

const range = (r: { min: number; max: number }) => (r.min === r.max ? `${r.min} ms` : `${r.min}–${r.max} ms`);

function printConfig(command: AppCommand, plan: Workload): void {
  const rows: Array<[string, string]> = [
    ['app', command.label],
    ['workload', plan.label],
    ['mentions', `${plan.mentions.length} (scale ${config.scale}; ${config.maxInFlight} in flight at most)`],
    [
      'approval share',
      `${config.approvalShare} (Allow clicked ${range(config.clickDelayMs)} after the card)`,
    ],
    [
      'latency',
      `Slack ${config.slackLatencyMs} ms per call, model ${range(config.modelLatencyMs)} (seed ${config.seed})`,
    ],
    [
      'Slack rate limits',
      config.compare && config.baseline === undefined ? 'on, then off' : config.slackLimits ? 'on' : 'off',
    ],
    ...(config.compare && config.baseline !== undefined
      ? ([['compared with', config.baseline]] as Array<[string, string]>)
      : []),
    ['drain / settle timeout', `${config.drainTimeoutSeconds} s / ${config.settleSeconds} s`],
    ['HOLDFAST_DB_SYNCHRONOUS', config.synchronous],
    ...Object.entries(config.appEnv),
    ['cores', String(os.availableParallelism())],
  ];
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(32)}  ${value}\n`);
}

async function main(): Promise<void> {
  const command = appCommand(config.app);
  printConfig(command, workload);
  const limitsTitle = (limits: boolean) => `limits ${limits ? 'on' : 'off'}`;
  const plans: Array<{ title: string; command: AppCommand; limits: boolean }> =
    config.compare && config.baseline !== undefined
      ? [
          { title: 'baseline', command: appCommand(config.app, config.baseline), limits: config.slackLimits },
          { title: 'this', command, limits: config.slackLimits },
        ]
      : (config.compare ? [true, false] : [config.slackLimits]).map((limits) => ({
          title: limitsTitle(limits),
          command,
          limits,
        }));
  const runs: Array<{ title: string; results: Results }> = [];
  for (const plan of plans) {
    const { title, limits } = plan;
    process.stdout.write(
      `\nrunning ${title} (${plan.command.label}) with Slack limits ${limits ? 'on' : 'off'}…\n`,
    );
    const run = await runLoad(config, plan.command, workload, limits);
    runs.push({ title, results: run.results });
    if (run.exitedEarly !== undefined) {
      process.stdout.write(`the app stopped on its own (${run.exitedEarly}); its log is ${run.logFile}\n`);
    } else if (!run.results.drained || process.env.BENCH_LOAD_KEEP === '1') {
      // What was not answered is worth a look: the app's database and log stay.
      process.stdout.write(`the app's database and log are kept in ${run.workdir}\n`);
    } else {
      fs.rmSync(run.workdir, { recursive: true, force: true });
    }
  }
  printTable(runs);
  const out = path.join(import.meta.dirname, '..', 'load-results.json');
  const [only] = runs;
  const written =
    runs.length === 1 && only
      ? only.results
      : {
          compare: true,
          runs: Object.fromEntries(runs.map((run) => [run.title.replace(' ', '_'), run.results])),
        };
  fs.writeFileSync(out, `${JSON.stringify(written, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
}

await main();
