import type { Logger } from 'pino';
import type { StoredMessage } from '../store/records.js';
import type { Fence, Store } from '../store/store.js';
import { EmptyModelReplyError, MaxStepsExceededError, TurnAbortedError } from './agent-errors.js';
import { capText } from './cap-text.js';
import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from './chat-model.js';
import type { KeyValueState } from './kv.js';
import type { NestedAgentRequest, Tool } from './tool.js';
import type { ToolCallSite } from './tool-call-site.js';
import { executePendingCalls, type ToolRuntimeDeps } from './tool-runtime.js';
import type { TurnBudget } from './turn-budget.js';

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
  readonly signal: AbortSignal;
}

/** A nested agent's answer is kept to this many characters: its parent reads it, and so does the model. */
export const nestedAnswerLimit = 8_000;

export type LoopResult =
  /** The model produced a final answer; the caller persists it (with the turn's status, atomically). */
  | { readonly type: 'answer'; readonly content: string }
  /** A nested transcript already ended with this answer before a crash. */
  | { readonly type: 'answered-before'; readonly content: string };

/**
 * The model/tool loop over one transcript. It always starts from what is on disk: when the last assistant
 * message has calls without results it runs those first and does not call the model (invariant 4), which
 * makes the same function serve a fresh turn, a resume and a crash recovery.
 */
export async function runAgentLoop(run: LoopRun, deps: LoopDeps): Promise<LoopResult> {
  const toolsByName = new Map(run.tools.map((tool) => [tool.name, tool]));
  const specs: ToolSpec[] = run.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
  }));
  for (let step = 0; step < run.maxSteps; step += 1) {
    if (run.signal.aborted) throw new TurnAbortedError('The turn was stopped before it finished');
    const stored = await deps.store.transcript.messages(run.transcriptId);
    const open = unansweredCalls(stored);
    if (open.calls.length > 0) {
      await executePendingCalls(
        open.calls,
        {
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
          answered: open.answered,
          runAgent: (request, site) => runNestedAgent(request, site, run, deps),
        },
        deps,
      );
      continue;
    }
    const last = stored.at(-1)?.message;
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
    const reply = await run.model.complete({
      messages: [{ role: 'system', content: run.systemPrompt }, ...stored.map((row) => row.message)],
      tools: specs,
      signal: run.signal,
    });
    if (reply.toolCalls.length === 0) {
      if (reply.content === null || reply.content.trim() === '') throw new EmptyModelReplyError();
      return { type: 'answer', content: reply.content };
    }
    // Invariant 1: the assistant message and its calls are on disk before any of them runs.
    await deps.store.transcript.append(run.fence, run.transcriptId, {
      role: 'assistant',
      content: reply.content,
      toolCalls: reply.toolCalls,
    });
  }
  throw new MaxStepsExceededError(run.maxSteps);
}

interface OpenCalls {
  readonly calls: readonly ToolCall[];
  readonly answered: ReadonlySet<string>;
}

/** The calls of the last assistant message that have no tool result after it. */
export function unansweredCalls(stored: readonly StoredMessage[]): OpenCalls {
  const answered = new Set<string>();
  for (let index = stored.length - 1; index >= 0; index -= 1) {
    const message: ChatMessage = stored[index]!.message;
    if (message.role === 'tool') {
      answered.add(message.toolCallId);
      continue;
    }
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const calls = message.toolCalls.filter((call) => !answered.has(call.id));
      return { calls, answered };
    }
    break;
  }
  return { calls: [], answered };
}

async function runNestedAgent(
  request: NestedAgentRequest,
  site: ToolCallSite,
  parent: LoopRun,
  deps: LoopDeps,
): Promise<string> {
  // The nested transcript is keyed by the delegating call, so a resume finds it and carries on.
  const transcriptId = `${parent.transcriptId}>${site.toolCallId}`;
  const existing = await deps.store.transcript.messages(transcriptId);
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
