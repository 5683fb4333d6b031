import type { Logger } from 'pino';
import type { ChatModel } from './chat-model.js';
import type { KeyValueState } from './kv.js';
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
  parse(input: unknown): { success: true; data: Args } | { success: false; error: string };
  permission(args: Args, ctx: ToolContext): ToolPermission | Promise<ToolPermission>;
  /**
   * Runs the call. A run that went wrong without throwing (a non-zero exit, a network error) returns
   * `failedRun(...)`, so its outcome is known without reading its text.
   */
  execute(args: Args, ctx: ToolContext): Promise<ToolOutput>;
}
