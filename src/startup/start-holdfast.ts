import type { Config } from '../config.js';
import { startOpsServer } from '../ops/ops-routes.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { waitAtMost } from '../runtime/wait-at-most.js';
import { buildRuntime } from './build-runtime.js';
import { type FrontEnd, openFrontEnd } from './front-end.js';
import type { Holdfast, HoldfastOverrides } from './holdfast.js';
import { databaseLabel } from './open-store.js';
import { type CoreParts, prepareCore } from './prepare-core.js';

/** The composition root: every client, database handle and server is built here and passed down. */
export async function startHoldfast(config: Config, overrides: HoldfastOverrides = {}): Promise<Holdfast> {
  const core = await prepareCore(config, overrides);
  const { logger, ops } = core;
  let frontEnd: FrontEnd | undefined;
  try {
    frontEnd = await openFrontEnd(config, core, overrides);
    const runtime = buildRuntime(config, core, frontEnd, overrides);
    // Agents are a cache: the next turn of each thread is built with the servers' tools as they are now.
    core.mcp.onChange(() => runtime.toolsChanged());
    frontEnd.attach(runtime);
    const { eventsUrl } = await frontEnd.start();
    const opsServer =
      config.healthPort === undefined
        ? undefined
        : await startOpsServer(config.healthPort, frontEnd.endpoints);
    await runtime.recover({ expiry: 'background' });
    runtime.startSweep(config.sweepIntervalMs);
    ops.auditMirror?.start(config.sweepIntervalMs);
    logger.info(
      {
        mode: config.slack.type,
        database: databaseLabel(config),
        tools: core.tools.map((tool) => tool.name),
      },
      'holdfast is running',
    );
    const running = { core, frontEnd, runtime, closeOps: () => opsServer?.close() };
    return {
      runtime,
      logger,
      eventsUrl,
      localUrl: frontEnd.localUrl,
      damaged: core.opened.damage.then((error) => error ?? new Promise<Error>(() => undefined)),
      opsUrl: opsServer?.url,
      metrics: ops.registry,
      stop: () => stopHoldfast(running),
    };
  } catch (error) {
    for (const close of [frontEnd?.stop, frontEnd?.close, core.close]) await close?.().catch(() => undefined);
    throw error;
  }
}

/** Requests stop first (Slack redelivers what it sent meanwhile), then the turns, then the files. */
async function stopHoldfast(running: {
  readonly core: CoreParts;
  readonly frontEnd: FrontEnd;
  readonly runtime: Runtime;
  readonly closeOps: () => Promise<void> | undefined;
}): Promise<void> {
  const { core, frontEnd, runtime } = running;
  const logger = core.logger;
  await frontEnd.stop().catch((error: unknown) => logger.warn({ err: error }, 'could not stop the app'));
  await runtime.shutdown();
  // A command its turn's abort did not end within the grace (or one that ignores SIGTERM) is ended here,
  // while the store is open to take its result: nothing holdfast started outlives it.
  const ended = await core.processGroups.endAll();
  if (ended > 0) {
    logger.warn({ commands: ended }, 'ended commands still running at shutdown');
    await waitAtMost(runtime.turnsSettled(), 2_000);
  }
  await core.ops.auditMirror?.stop();
  await running.closeOps();
  await frontEnd.close();
  await core.close();
  logger.info('holdfast stopped: no new requests, turns drained, database closed');
}
