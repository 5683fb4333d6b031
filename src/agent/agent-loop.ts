import type { Logger } from 'pino';
import type { Fence, Store } from '../store/store.js';
import { EmptyModelReplyError, MaxStepsExceededError, TurnAbortedError } from './agent-errors.js';
import { capText } from './cap-text.js';
import type { ChatMessage, ChatModel, ChatRequest, ModelReply, ToolCall, ToolSpec } from './chat-model.js';
import type { KeyValueState } from './kv.js';
import { estimateToolTokens, fitToBudget } from './model-context.js';
import type { NestedAgentRequest, Tool } from './tool.js';
import type { ToolCallSite } from './tool-call-site.js';
import { runToolBatch, type ToolBatch, type ToolRuntimeDeps } from './tool-runtime.js';
import type { TurnBudget } from './turn-budget.js';
import type { ReportProgress } from './turn-progress.js';

export interface LoopDeps extends ToolRuntimeDeps {
  readonly store: Store;
  readonly logger: Logger;
  /** Called before each model call; throws when the turn's lease was lost. */
  readonly heartbeat: () => void;
}

export interface LoopRun {
  readonly conversationId: string;
  readonly channelId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly requestedBy: string;
  /** The turn's claim; every write below carries it. */
  readonly fence: Fence;
  readonly systemPrompt: string;
  readonly model: ChatModel;
  readonly tools: readonly Tool[];
  readonly kv: KeyValueState;
  readonly maxSteps: number;
  /** Shared by the turn and every nested agent it runs. */
  readonly budget: TurnBudget;
  /** Tokens the model may be sent (system prompt, tools and messages); older exchanges are left out. */
  readonly contextTokens: number;
  /** Parks the whole turn with a batch's pending rows (see `ToolBatch.suspend`); set by the runner. */
  readonly suspend: ToolBatch['suspend'];
  readonly signal: AbortSignal;
  /** Told what the turn is doing as it happens (the answer's text, its calls); see `TurnProgress`. */
  readonly progress?: ReportProgress;
}

/** A nested agent's answer is kept to this many characters: its parent reads it, and so does the model. */
const nestedAnswerLimit = 8_000;

export type LoopResult =
  /** The model produced a final answer; the caller persists it (with the turn's status, atomically). */
  | { readonly type: 'answer'; readonly content: string }
  /** A nested transcript already ended with this answer before a crash. */
  | { readonly type: 'answered-before'; readonly content: string };

/**
 * The model/tool loop over one transcript. It starts from what is on disk: when the last assistant
 * message has calls without results it runs those first and does not call the model (invariant 4), which
 * makes the same function serve a fresh turn, a resume and a crash recovery. The transcript is read once
 * (its newest part, as much as the model can be sent) and kept in memory as the loop appends to it, so a
 * step costs the same on a thread of ten messages as on one of five thousand.
 */
export async function runAgentLoop(run: LoopRun, deps: LoopDeps): Promise<LoopResult> {
  const toolsByName = new Map(run.tools.map((tool) => [tool.name, tool]));
  const specs: ToolSpec[] = run.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
  }));
  const messageBudget =
    run.contextTokens - estimateToolTokens(run.tools) - Math.ceil(run.systemPrompt.length / 3.5);
  const history: ChatMessage[] = await deps.store.transcript.recent(run.transcriptId, {
    maxChars: Math.max(0, messageBudget) * 4,
  });
  const batch = {
    site: {
      conversationId: run.conversationId,
      channelId: run.channelId,
      transcriptId: run.transcriptId,
      turnId: run.turnId,
      requestedBy: run.requestedBy,
      fence: run.fence,
    },
    tools: toolsByName,
    kv: run.kv,
    budget: run.budget,
    signal: run.signal,
    suspend: run.suspend,
    progress: run.progress,
    runAgent: (request: NestedAgentRequest, site: ToolCallSite) => runNestedAgent(request, site, run, deps),
  };
  const onStored = (message: ChatMessage) => {
    history.push(message);
  };
  for (let step = 0; step < run.maxSteps; step += 1) {
    if (run.signal.aborted) throw new TurnAbortedError('The turn was stopped before it finished');
    const open = unansweredCalls(history);
    if (open.length > 0) {
      await runToolBatch(open, batch, deps, { onStored });
      continue;
    }
    const last = history.at(-1);
    if (
      last?.role === 'assistant' &&
      !last.toolCalls?.length &&
      step === 0 &&
      run.transcriptId !== run.conversationId
    ) {
      return { type: 'answered-before', content: last.content ?? '' };
    }
    deps.heartbeat();
    run.budget.chargeModelCall();
    const context = fitToBudget(history, messageBudget);
    if (context.dropped > 0)
      deps.logger.debug({ dropped: context.dropped }, 'older messages left out of the context');
    const reply = await askModel(run, {
      messages: [{ role: 'system', content: run.systemPrompt }, ...context.messages],
      tools: specs,
      signal: run.signal,
    });
    if (reply.toolCalls.length === 0) {
      if (reply.content === null || reply.content.trim() === '') throw new EmptyModelReplyError();
      return { type: 'answer', content: reply.content };
    }
    await runToolBatch(reply.toolCalls, batch, deps, {
      message: { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls },
      onStored,
    });
  }
  throw new MaxStepsExceededError(run.maxSteps);
}

/**
 * Streams when the model can and someone is watching; the reply is used only once it is whole, so what
 * runs and what is stored are the same as without streaming (invariant 1).
 */
function askModel(run: LoopRun, request: ChatRequest): Promise<ModelReply> {
  const { model, progress } = run;
  if (!progress || !model.stream) return model.complete(request);
  return model.stream(request, (event) => {
    switch (event.type) {
      case 'text':
        progress({ type: 'text', delta: event.delta });
        return;
      case 'restart':
        progress({ type: 'text-reset' });
        return;
      case 'tool-call':
        progress({ type: 'tool-planned', call: { id: event.id, name: event.name } });
        return;
    }
  });
}

/** The calls of the last assistant message that have no tool result after it. */
export function unansweredCalls(history: readonly ChatMessage[]): readonly ToolCall[] {
  const answered = new Set<string>();
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index] as ChatMessage;
    if (message.role === 'tool') {
      answered.add(message.toolCallId);
      continue;
    }
    if (message.role === 'assistant' && message.toolCalls?.length) {
      return message.toolCalls.filter((call) => !answered.has(call.id));
    }
    break;
  }
  return [];
}

async function runNestedAgent(
  request: NestedAgentRequest,
  site: ToolCallSite,
  parent: LoopRun,
  deps: LoopDeps,
): Promise<string> {
  // The nested transcript is keyed by the delegating call, so a resume finds it and carries on.
  const transcriptId = `${parent.transcriptId}>${site.toolCallId}`;
  const existing = await deps.store.transcript.recent(transcriptId, { maxChars: 1 });
  if (existing.length === 0) {
    await deps.store.transcript.append(parent.fence, transcriptId, { role: 'user', content: request.input });
  }
  const result = await runAgentLoop(
    {
      ...parent,
      transcriptId,
      systemPrompt: request.instructions,
      model: request.model ?? parent.model,
      tools: request.tools,
      kv: parent.kv.child(`${request.name}:${site.toolCallId}`),
      maxSteps: request.maxSteps ?? parent.maxSteps,
      // The nested agent's text is for its parent, not the thread.
      progress: undefined,
    },
    deps,
  );
  if (result.type === 'answer') {
    await deps.store.transcript.append(parent.fence, transcriptId, {
      role: 'assistant',
      content: result.content,
    });
  }
  return capText(result.content, nestedAnswerLimit, 'the nested agent');
}
