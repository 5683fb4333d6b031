import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import type { Store, ToolCallRef } from '../store/store.js';
import { isStoreFault } from '../store/store-errors.js';
import { ApprovalPending } from './approval-pending.js';
import { capText } from './cap-text.js';
import type { ToolCall } from './chat-model.js';
import { hashArguments } from './hash-arguments.js';
import type { KeyValueState } from './kv.js';
import type { PermissionChecker, PermissionDecision } from './permission-checker.js';
import type { NestedAgentRequest, Tool, ToolContext } from './tool.js';
import type { ToolCallSite } from './tool-call-site.js';
import { ToolRefusedError } from './tool-refused-error.js';
import type { TurnBudget } from './turn-budget.js';

export interface ToolRuntimeDeps {
  readonly store: Store;
  readonly permissions: PermissionChecker;
  readonly logger: Logger;
  /** Waits between retries of a result that could not be saved; injectable so tests need no real time. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Applied to every tool result before it is stored, and so before the model or anyone sees it. */
  readonly redact: (text: string) => string;
}

export interface ToolBatch {
  /** Everything but the call id: the site each call of this batch happens at. */
  readonly site: Omit<ToolCallSite, 'toolCallId'>;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly kv: KeyValueState;
  readonly budget: TurnBudget;
  readonly signal: AbortSignal;
  /** Runs a nested agent for the delegating call `site`. */
  readonly runAgent: (request: NestedAgentRequest, site: ToolCallSite) => Promise<string>;
  /** Results already in the transcript, by tool call id. */
  readonly answered: ReadonlySet<string>;
}

export const interruptedResult =
  'interrupted: outcome unknown. The process stopped while this tool was running, and it is not safe to ' +
  'run it again automatically. Tell the user, and ask them to check the outcome before retrying.';

/** Any one tool result is kept to this many characters, in the transcript and for the model. */
export const toolResultLimit = 64_000;

/** A result that cannot be saved is retried this many times (a full disk, a lock held too long). */
const resultRetryDelaysMs = [50, 250, 1_000, 3_000, 5_000];

/**
 * Runs, in order, every call of one assistant message that has no result yet. Each result is persisted
 * the moment it exists (invariant 3), so when a later call suspends the earlier ones are already safe.
 * `ApprovalPending` passes through untouched (invariant 2).
 */
export async function executePendingCalls(
  calls: readonly ToolCall[],
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
) {
  for (const call of calls) {
    if (batch.answered.has(call.id)) continue;
    await executeCall(call, batch, deps);
  }
}

async function executeCall(call: ToolCall, batch: ToolBatch, deps: ToolRuntimeDeps): Promise<void> {
  const site: ToolCallSite = { ...batch.site, toolCallId: call.id };
  const ref: ToolCallRef = {
    conversationId: site.conversationId,
    transcriptId: site.transcriptId,
    turnId: site.turnId,
    toolCallId: call.id,
  };
  // Invariant 9: a secret a tool printed never reaches the transcript, the model or the thread.
  const record = (content: string) => recordResult(deps, site, ref, deps.redact(content));

  const tool = batch.tools.get(call.name);
  if (!tool) {
    const available = [...batch.tools.keys()].join(', ') || 'none';
    await record(`Error: there is no tool named "${call.name}". Available tools: ${available}.`);
    return;
  }
  let input: unknown;
  try {
    input = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    await record(
      `Error: the arguments for ${call.name} are not valid JSON (${describeError(error)}). Send a JSON object.`,
    );
    return;
  }
  const parsed = tool.parse(input);
  if (!parsed.success) {
    await record(
      `Error: invalid arguments for ${call.name}:\n${parsed.error}\nFix the arguments and call it again.`,
    );
    return;
  }
  const args = parsed.data;
  if (!batch.budget.chargeToolCall()) {
    await deps.store.audit.record({
      actor: 'holdfast',
      kind: 'turn.budget_exhausted',
      conversationId: site.conversationId,
      data: {
        turnId: site.turnId,
        tool: tool.name,
        toolCallId: call.id,
        limit: batch.budget.limits.toolCalls,
      },
    });
    await record(
      `Not run: this request has used its budget of ${batch.budget.limits.toolCalls} tool calls. ` +
        'Answer with what you have, and tell the user the request was too large to finish.',
    );
    return;
  }
  const argsHash = hashArguments(call.arguments);
  const logger = deps.logger.child({ tool: call.name, toolCallId: call.id });
  const context: ToolContext = {
    transcriptId: site.transcriptId,
    turnId: site.turnId,
    toolCallId: call.id,
    requestedBy: site.requestedBy,
    kv: batch.kv,
    signal: batch.signal,
    logger,
    runAgent: (request) => batch.runAgent(request, site),
  };

  // May throw ApprovalPending: deliberately no try/catch around the check.
  const decision = await deps.permissions.check(site, {
    toolName: tool.name,
    args,
    argsHash,
    toolPermission: await tool.permission(args, context),
  });
  if (decision.type === 'denied') {
    await record(deniedResult(decision));
    return;
  }
  const start = await deps.store.transcript.startTool(site.fence, { ...ref, toolName: tool.name, argsHash });
  if (start.type === 'previously-started' && !tool.idempotent) {
    logger.warn('tool was started before a crash and is not idempotent; not running it again');
    await deps.store.audit.record({
      actor: 'holdfast',
      kind: 'tool.interrupted',
      conversationId: site.conversationId,
      data: { tool: tool.name, toolCallId: call.id, startedAt: start.startedAt },
    });
    await record(interruptedResult);
    return;
  }
  let output: string;
  try {
    output = await tool.execute(args, context);
  } catch (error) {
    // Invariant 2: a suspension inside the tool (a nested agent) is not an error result.
    if (error instanceof ApprovalPending) throw error;
    if (error instanceof ToolRefusedError) {
      await deps.store.audit.record({
        actor: 'holdfast',
        kind: 'tool.refused',
        conversationId: site.conversationId,
        data: { tool: tool.name, toolCallId: call.id, reason: error.message },
      });
      output = error.message;
    } else {
      logger.info({ err: error }, 'tool failed');
      output = `Error: ${tool.name} failed: ${describeError(error)}`;
    }
  }
  // Invariant 3: persisted now, before the next sibling can suspend the turn.
  await record(output);
}

/**
 * The result exists only in memory until this commits, and the tool will not run again: a storage fault
 * (full disk, a lock held too long) is worth waiting out for a few seconds before the turn gives up.
 */
async function recordResult(
  deps: ToolRuntimeDeps,
  site: ToolCallSite,
  ref: ToolCallRef,
  content: string,
): Promise<void> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt += 1) {
    try {
      await deps.store.transcript.recordToolResult(
        site.fence,
        ref,
        capText(content, toolResultLimit, 'the tool'),
      );
      return;
    } catch (error) {
      const delay = resultRetryDelaysMs[attempt];
      if (!isStoreFault(error) || delay === undefined) throw error;
      deps.logger.warn(
        { err: error, toolCallId: ref.toolCallId, attempt },
        'could not save a tool result; retrying',
      );
      await sleep(delay);
    }
  }
}

function deniedResult(decision: Extract<PermissionDecision, { type: 'denied' }>): string {
  return `Not run: ${decision.reason}`;
}
