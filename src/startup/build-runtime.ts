import { contextBudgetFor } from '../agent/model-context.js';
import type { Config } from '../config.js';
import { createRuntime, type Runtime } from '../runtime/create-runtime.js';
import { buildModel } from './build-parts.js';
import type { FrontEnd } from './front-end.js';
import type { HoldfastOverrides } from './holdfast.js';
import { offeredTools } from './offered-tools.js';
import type { CoreParts } from './prepare-core.js';

/** The runtime of this process: the core's parts, the configured limits and what the front end hands over. */
export function buildRuntime(
  config: Config,
  core: CoreParts,
  frontEnd: FrontEnd,
  overrides: HoldfastOverrides,
): Runtime {
  const { ops, mcp, tools, logger } = core;
  const startMcp = new Set(mcp.tools());
  return createRuntime({
    ...frontEnd.forRuntime,
    store: core.opened.store,
    model: ops.model(overrides.model ?? buildModel(config, core.openai, logger)),
    policy: frontEnd.policy,
    tools:
      config.mcpServers.length === 0
        ? ops.tools(tools)
        : offeredTools({
            fixed: tools.filter((tool) => !startMcp.has(tool)),
            mcp,
            observe: ops.tools,
            logger,
          }),
    logger,
    now: core.now,
    instructions: config.instructions,
    maxConcurrentTurns: config.maxConcurrentTurns,
    pressure: core.pressure,
    // Sized for the configured model, so a long thread is trimmed before the API would refuse it.
    contextTokens: contextBudgetFor(config.model.type === 'openai' ? config.model.model : 'demo', {
      cap: config.contextTokensCap,
    }),
    approvalExpiryMs: config.approvalTtlMs,
    reach: config.reach,
    budget: config.turnBudget,
    admission: config.admission,
    identity: core.identity,
    leaseMs: overrides.leaseMs,
    delivery: { port: frontEnd.delivery, ...overrides.delivery },
    redact: core.redact,
    watch: ops.watch,
  });
}
