import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import type { Store, ToolCallRef } from '../store/store.js';
import { ApprovalPending } from './approval-pending.js';
import type { ToolCall } from './chat-model.js';
import { hashArguments } from './hash-arguments.js';
import type { KeyValueState } from './kv.js';
import type { PermissionChecker, PermissionDecision } from './permission-checker.js';
import type { Tool, ToolContext } from './tool.js';
import type { ToolCallContext } from './tool-call-scope.js';

export interface ToolRuntimeDeps {
  readonly store: Store;
  readonly permissions: PermissionChecker;
  readonly callContext: ToolCallContext;
  readonly logger: Logger;
  /** Applied to every tool result before it is stored, and so before the model or anyone sees it. */
  readonly redact: (text: string) => string;
}

export interface ToolBatch {
  readonly conversationId: string;
  readonly channelId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly requestedBy: string;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly kv: KeyValueState;
  readonly signal: AbortSignal;
  readonly runAgent: ToolContext['runAgent'];
  /** Results already in the transcript, by tool call id. */
  readonly answered: ReadonlySet<string>;
}

export const interruptedResult =
  'interrupted: outcome unknown. The process stopped while this tool was running, and it is not safe to ' +
  'run it again automatically. Tell the user, and ask them to check the outcome before retrying.';

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
  const ref: ToolCallRef = {
    conversationId: batch.conversationId,
    transcriptId: batch.transcriptId,
    turnId: batch.turnId,
    toolCallId: call.id,
  };
  // Invariant 9: a secret a tool printed never reaches the transcript, the model or the thread.
  const record = (content: string) => deps.store.transcript.recordToolResult(ref, deps.redact(content));

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
  const logger = deps.logger.child({ tool: call.name, toolCallId: call.id, turnId: batch.turnId });
  const context: ToolContext = {
    transcriptId: batch.transcriptId,
    turnId: batch.turnId,
    toolCallId: call.id,
    requestedBy: batch.requestedBy,
    kv: batch.kv,
    signal: batch.signal,
    logger,
    runAgent: batch.runAgent,
  };
  const scope = { ...ref, channelId: batch.channelId, requestedBy: batch.requestedBy };

  await deps.callContext.run(scope, async () => {
    // May throw ApprovalPending: deliberately no try/catch around the check.
    const decision = await deps.permissions.check({
      toolName: tool.name,
      args,
      argsHash: hashArguments(call.arguments),
      toolPermission: await tool.permission(args, context),
    });
    if (decision.type === 'denied') {
      await record(deniedResult(decision));
      return;
    }
    const start = await deps.store.transcript.startTool({
      ...ref,
      toolName: tool.name,
      argsHash: hashArguments(call.arguments),
    });
    if (start.type === 'previously-started' && !tool.idempotent) {
      logger.warn('tool was started before a crash and is not idempotent; not running it again');
      await deps.store.audit.record({
        actor: 'holdfast',
        kind: 'tool.interrupted',
        conversationId: batch.conversationId,
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
      logger.info({ err: error }, 'tool failed');
      output = `Error: ${tool.name} failed: ${describeError(error)}`;
    }
    // Invariant 3: persisted now, before the next sibling can suspend the turn.
    await record(output);
  });
}

function deniedResult(decision: Extract<PermissionDecision, { type: 'denied' }>): string {
  return `Not run: ${decision.reason}`;
}
