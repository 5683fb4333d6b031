import type { Logger } from 'pino';
import type { ChatModel } from './chat-model.js';
import type { KeyValueState } from './kv.js';
import type { PersonAnswer, PersonQuestion } from './person-question.js';
import type { ToolOutput } from './tool-outcome.js';

/**
 * What a tool says about a call before it runs. `allow` means the tool itself considers the call safe
 * (a GET to an allow-listed host, a read-only query); policy deny rules still win over it.
 */
export type ToolPermission =
  | { readonly type: 'allow'; readonly reason: string }
  | {
      readonly type: 'ask';
      /** Routes the request to approvers (`shell`, `deploy`, `sql_write`, ...). */
      readonly permissionType: string;
      /** One line for humans: what will happen if this is allowed. */
      readonly summary: string;
      readonly reason?: string;
    };

/**
 * Where a call runs and what it may change, as its tool knows them: what an approver needs besides the
 * arguments. Every field is optional; a tool says what it knows.
 */
export interface CallEffects {
  /** The directory the call runs in. */
  readonly workdir?: string;
  /** The machine it runs on. */
  readonly host?: string;
  /** A service the call deploys, and the ref (undefined: the service's default). */
  readonly deploy?: { readonly service: string; readonly ref: string | undefined };
  /** The exact command that runs when the arguments do not hold it (a deploy's configured command). */
  readonly command?: string;
  /** What the call may change, as a short phrase for people. */
  readonly changes?: string;
}

/** A call's effects by tool name, for cards built from a stored request (undefined: not known). */
export type EffectsOf = (toolName: string, args: unknown) => CallEffects | undefined;

/** The lookup over a set of tools; a tool that does not describe its calls gives undefined. */
export function effectsOfTools(tools: readonly Tool[]): EffectsOf {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (toolName, args) => byName.get(toolName)?.effects?.(args);
}

export interface NestedAgentRequest {
  readonly name: string;
  readonly instructions: string;
  readonly input: string;
  readonly tools: readonly Tool[];
  readonly model?: ChatModel;
  readonly maxSteps?: number;
}

export interface ToolContext {
  /** The transcript this call belongs to (a nested agent has its own). */
  readonly transcriptId: string;
  readonly turnId: string;
  readonly toolCallId: string;
  /** Slack user id of whoever started the turn. */
  readonly requestedBy: string;
  /** Plugin state that survives approvals and restarts (invariant 5). */
  readonly kv: KeyValueState;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Runs a nested agent whose approvals suspend the whole turn; returns its final answer. */
  runAgent(request: NestedAgentRequest): Promise<string>;
  /**
   * The requester's answer to `question`, asked as this call's question `ordinal` (from 0), once they
   * answered it; undefined when it was not asked yet. A tool that needs an answer it does not have throws
   * `PersonInputNeeded`, and runs again once the answer is in.
   */
  answerTo(ordinal: number, question: PersonQuestion): Promise<PersonAnswer | undefined>;
}

/** A tool as the runtime sees it: arguments arrive as `unknown` and are parsed by `parse`. */
export interface Tool<Args = unknown> {
  readonly name: string;
  readonly description: string;
  /** JSON schema sent to the model. */
  readonly jsonSchema: Record<string, unknown>;
  /**
   * Safe to run again after a crash left its outcome unknown. Only tools whose effect is harmless to
   * repeat (reads, nested agents that resume from their own transcript) may say so.
   */
  readonly idempotent: boolean;
  /**
   * The permission types this tool asks under, so a policy naming another one can be caught as a typo.
   * Undefined when a tool does not say (a plugin with a `permission` function of its own).
   */
  readonly permissionTypes?: readonly string[];
  /**
   * A digest of a definition the tool does not own (an MCP server's name, description and input schema),
   * read at each call: approvals bind it with the arguments, so a changed definition voids a card.
   */
  readonly definitionHash?: string;
  /** What changed in that definition the last time it changed, in words for people. */
  readonly definitionChange?: string;
  parse(input: unknown): { success: true; data: Args } | { success: false; error: string };
  permission(args: Args, ctx: ToolContext): ToolPermission | Promise<ToolPermission>;
  /** Where a call with these (unparsed, as stored) arguments runs and what it may change, for its card. */
  effects?(input: unknown): CallEffects | undefined;
  /**
   * Runs the call. A run that went wrong without throwing (a non-zero exit, a network error) returns
   * `failedRun(...)`, so its outcome is known without reading its text.
   */
  execute(args: Args, ctx: ToolContext): Promise<ToolOutput>;
}
