import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import type { Approval, ApprovalEdit } from '../store/records.js';
import type { NewApproval, Store, ToolCallRef } from '../store/store.js';
import { TurnAbortedError } from './agent-errors.js';
import { ApprovalPending, nonEmptyApprovals } from './approval-pending.js';
import { askRequester, toolContext } from './call-context.js';
import { cutShort, notRunOutcome } from './call-outcome.js';
import type { ChatMessage, ToolCall } from './chat-model.js';
import { hashCall } from './hash-arguments.js';
import type { KeyValueState } from './kv.js';
import { interruptedResult, notRunResult } from './not-run-result.js';
import type { PermissionChecker, PermissionDecision } from './permission-checker.js';
import { persistToolResult } from './persist-tool-result.js';
import type { NameOf } from './person-name.js';
import { PersonInputNeeded } from './person-question.js';
import type { NestedAgentRequest, Tool } from './tool.js';
import { refOf, type ToolCallSite } from './tool-call-site.js';
import { outcomeOfOutput, outputText, type ToolOutcome } from './tool-outcome.js';
import { ToolRefusedError } from './tool-refused-error.js';
import type { TurnBudget } from './turn-budget.js';
import type { ReportProgress } from './turn-progress.js';

export interface ToolRuntimeDeps {
  readonly store: Store;
  readonly permissions: PermissionChecker;
  readonly logger: Logger;
  /** Applied to every tool result before it is stored, and so before the model or anyone sees it. */
  readonly redact: (text: string) => string;
  /** Waits between retries of a result that could not be saved; injectable so tests need no real time. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** People's names, for sentences about them the model reads and may pass on (never their ids). */
  readonly nameOf?: NameOf;
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
  /** Told as calls start, finish or wait on people; absent for nested agents, whose steps are their own. */
  readonly progress?: ReportProgress;
  /**
   * Parks the whole turn: writes `message` (when it is not on disk yet) and every pending row in one
   * commit with the suspension, then returns the rows as stored.
   */
  readonly suspend: (batch: {
    readonly transcriptId: string;
    readonly message?: ChatMessage;
    readonly approvals: readonly NewApproval[];
    /** A call that stopped to ask its requester: it runs again, from its start, once answered. */
    readonly restartCall?: ToolCallRef;
  }) => Promise<Approval[]>;
}

export { interruptedResult, modelNoteMark, notRunResult } from './not-run-result.js';
export { toolResultLimit } from './persist-tool-result.js';

/** What is known about one call before anything of its batch runs. */
type CallPlan =
  /** Nothing to run: the answer is this text (no such tool, arguments that do not parse). */
  | { readonly type: 'answer'; readonly call: ToolCall; readonly content: string }
  | {
      readonly type: 'run';
      readonly call: ToolCall;
      readonly tool: Tool;
      readonly args: unknown;
      readonly argsHash: string;
      readonly decision: PermissionDecision;
    }
  | { readonly type: 'ask'; readonly call: ToolCall; readonly approval: NewApproval }
  | { readonly type: 'pending'; readonly call: ToolCall; readonly approval: Approval };

/**
 * Runs the calls of one assistant message that have no result yet. Permission is decided for every call
 * before any of them runs. If any needs a person, all of its pending rows are written in one commit with
 * the suspension, so an approver sees the whole plan at once; the calls before the first of them that
 * need nobody run first (their results then survive the suspension), and nothing after it runs until
 * every request is decided. Each result is persisted the moment it exists (invariant 3). `message` is the
 * assistant message when it is not on disk yet (a fresh reply); invariant 1 holds either way: it is
 * written before any call runs, with the pending rows when nothing runs first. `ApprovalPending` passes
 * through untouched (invariant 2).
 */
export async function runToolBatch(
  calls: readonly ToolCall[],
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
  options: {
    readonly message?: ChatMessage;
    /** Each message as it is committed, so the caller's copy of the transcript stays current. */
    readonly onStored: (message: ChatMessage) => void;
  },
): Promise<void> {
  const plans: CallPlan[] = [];
  // Calls already on disk may have requests an approver edited: those run as edited (invariant 4: the
  // approved arguments were committed with the decision), and the model is told so with the result.
  const edits = new Map<string, { readonly call: ToolCall; readonly edit: ApprovalEdit }>();
  for (const proposed of calls) {
    // A call on disk has its request read once: the edit comes from it, and the permission check takes it
    // as the stored decision. A fresh reply's calls are left to the permission check.
    const stored = options.message
      ? undefined
      : ((await deps.store.approvals.forCall(batch.site.transcriptId, proposed.id)) ?? null);
    const edit = stored?.edit ?? null;
    if (edit) edits.set(proposed.id, { call: proposed, edit });
    const call = edit ? { ...proposed, arguments: edit.argumentsText } : proposed;
    plans.push(await planCall(call, batch, deps, stored));
  }
  const pending = plans.flatMap((plan) => (plan.type === 'pending' ? [plan.approval] : []));
  if (pending.length > 0) throw new ApprovalPending(nonEmptyApprovals(pending), false);
  const firstAsk = plans.findIndex((plan) => plan.type === 'ask');
  const runFirst = firstAsk === -1 ? plans : plans.slice(0, firstAsk);
  let message = options.message;
  if (message && (runFirst.length > 0 || firstAsk === -1)) {
    // Invariant 1: the assistant message and its calls are on disk before any of them runs.
    await deps.store.transcript.append(batch.site.fence, batch.site.transcriptId, message);
    options.onStored(message);
    message = undefined;
  }
  for (const plan of runFirst) {
    const result = await runPlan(plan, batch, deps);
    if (result === undefined) continue;
    const site: ToolCallSite = { ...batch.site, toolCallId: plan.call.id };
    const stored = await persistToolResult(deps, site, result, edits.get(plan.call.id));
    if (stored) options.onStored(stored);
  }
  if (firstAsk === -1) return;
  const asks = plans.flatMap((plan) => (plan.type === 'ask' ? [plan.approval] : []));
  const approvals = await batch.suspend({ transcriptId: batch.site.transcriptId, message, approvals: asks });
  if (message) options.onStored(message);
  batch.progress?.({
    type: 'awaiting-approval',
    calls: plans.slice(firstAsk).map(({ call }) => shownCall(call)),
  });
  throw new ApprovalPending(nonEmptyApprovals(approvals), true);
}

async function planCall(
  call: ToolCall,
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
  stored: Approval | null | undefined,
): Promise<CallPlan> {
  const tool = batch.tools.get(call.name);
  if (!tool) {
    const available = [...batch.tools.keys()].join(', ') || 'none';
    return {
      type: 'answer',
      call,
      content: `Error: there is no tool named "${call.name}". Available tools: ${available}.`,
    };
  }
  let input: unknown;
  try {
    input = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return {
      type: 'answer',
      call,
      content: `Error: the arguments for ${call.name} are not valid JSON (${describeError(error)}). Send a JSON object.`,
    };
  }
  const parsed = tool.parse(input);
  if (!parsed.success) {
    return {
      type: 'answer',
      call,
      content: `Error: invalid arguments for ${call.name}:\n${parsed.error}\nFix the arguments and call it again.`,
    };
  }
  const args = parsed.data;
  // Hashed once per call: the approval row, the ledger and the check on resume all compare this value.
  const argsHash = hashCall(tool, args, call.arguments);
  const site: ToolCallSite = { ...batch.site, toolCallId: call.id };
  const verdict = await deps.permissions.decide(site, {
    toolName: tool.name,
    args,
    argsHash,
    toolPermission: await tool.permission(args, toolContext(site, tool, batch, deps)),
    definitionBound: tool.definitionHash !== undefined,
    stored,
  });
  switch (verdict.type) {
    case 'ask':
      return { type: 'ask', call, approval: verdict.approval };
    case 'pending':
      return { type: 'pending', call, approval: verdict.approval };
    case 'allowed':
    case 'denied':
      return { type: 'run', call, tool, args, argsHash, decision: verdict };
  }
}

/** A call as people watching the turn see it: its tool and what it was asked to do. */
function shownCall(call: ToolCall) {
  return { id: call.id, name: call.name, arguments: call.arguments };
}

/** A call's result: what the model reads, and how the call ended. */
interface CallResult {
  readonly content: string;
  readonly outcome: ToolOutcome;
}

/** Runs one planned call; returns its result, or undefined when it has none to record. */
async function runPlan(
  plan: CallPlan,
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
): Promise<CallResult | undefined> {
  // A call that is not run is finished too: its task must not stay pending.
  const notRun = (result: CallResult): CallResult => {
    batch.progress?.({ type: 'tool-finished', call: shownCall(plan.call), outcome: result.outcome });
    return result;
  };
  if (plan.type === 'answer')
    return notRun({ content: plan.content, outcome: { type: 'refused', by: 'invalid-call' } });
  if (plan.type !== 'run') return undefined;
  const { call, tool, args, argsHash, decision } = plan;
  if (decision.type === 'denied') {
    const content = notRunResult(decision.reason, decision.guidance);
    return notRun({ content, outcome: notRunOutcome(decision) });
  }
  const site: ToolCallSite = { ...batch.site, toolCallId: call.id };
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
    return notRun({
      content: notRunResult(
        `this request has used its budget of ${batch.budget.limits.toolCalls} tool calls.`,
        'Answer with what you have, and tell the user the request was too large to finish.',
      ),
      outcome: { type: 'refused', by: 'holdfast' },
    });
  }
  const start = await deps.store.transcript.startTool(site.fence, {
    ...refOf(site),
    toolName: tool.name,
    argsHash,
  });
  if (start.type === 'previously-started' && !tool.idempotent) {
    deps.logger.warn(
      { tool: tool.name, toolCallId: call.id },
      'tool was started before a crash and is not idempotent; not running it again',
    );
    await deps.store.audit.record({
      actor: 'holdfast',
      kind: 'tool.interrupted',
      conversationId: site.conversationId,
      data: { tool: tool.name, toolCallId: call.id, startedAt: start.startedAt },
    });
    return notRun({ content: interruptedResult, outcome: { type: 'interrupted' } });
  }
  const shown = shownCall(call);
  batch.progress?.({ type: 'tool-started', call: shown });
  const finished = (result: CallResult): CallResult => {
    const outcome = cutShort(batch.signal) ?? result.outcome;
    batch.progress?.({ type: 'tool-finished', call: shown, outcome });
    return { content: result.content, outcome };
  };
  try {
    const output = await tool.execute(args, toolContext(site, tool, batch, deps));
    if (batch.signal.aborted && batch.signal.reason instanceof TurnAbortedError) {
      // holdfast is shutting down: the tool was told to stop (a command's process group ended), so what
      // it did is only partly known. The audit says it was interrupted; `finished` names the outcome so.
      await recordShutdownInterruption(site, tool.name, deps);
    }
    return finished({ content: outputText(output), outcome: outcomeOfOutput(output) });
  } catch (error) {
    // Invariant 2: a suspension inside the tool (a nested agent) is not an error result.
    if (error instanceof ApprovalPending) throw error;
    // Nor is a question for the requester: the call waits for the answer, and no result is written.
    if (error instanceof PersonInputNeeded) throw await askRequester(error, site, tool, batch, deps);
    if (error instanceof ToolRefusedError) {
      await deps.store.audit.record({
        actor: 'holdfast',
        kind: 'tool.refused',
        conversationId: site.conversationId,
        data: { tool: tool.name, toolCallId: call.id, reason: error.message },
      });
      return finished({ content: error.message, outcome: { type: 'refused', by: 'tool' } });
    }
    deps.logger.info({ err: error, tool: tool.name, toolCallId: call.id }, 'tool failed');
    const described = describeError(error);
    return finished({
      content: `Error: ${tool.name} failed: ${described}`,
      outcome: { type: 'failed', error: described },
    });
  }
}

async function recordShutdownInterruption(
  site: ToolCallSite,
  toolName: string,
  deps: ToolRuntimeDeps,
): Promise<void> {
  deps.logger.warn(
    { tool: toolName, toolCallId: site.toolCallId },
    'tool interrupted: holdfast is shutting down',
  );
  await deps.store.audit.record({
    actor: 'holdfast',
    kind: 'tool.interrupted',
    conversationId: site.conversationId,
    data: { tool: toolName, toolCallId: site.toolCallId, reason: 'shutdown' },
  });
}
