import type { Approval } from '../store/records.js';
import type { NewApproval } from '../store/store.js';
import type { PersonQuestion } from './person-question.js';
import type { ToolPermission } from './tool.js';
import type { ToolCallSite } from './tool-call-site.js';

/** Asked by the tool runtime, and only by it, before every tool call. */
export interface PermissionChecker {
  /**
   * Decides the call at `site` without creating anything: a rule, a grant or a stored decision settles
   * it at once (invariant 4: on resume the stored decision comes back with no human and no model
   * involved); otherwise the answer is the pending row to create. The caller writes every pending row of
   * an assistant message in one commit with the suspension, so a person sees the whole plan at once.
   */
  decide(site: ToolCallSite, request: PermissionRequest): Promise<PermissionVerdict>;
  /**
   * The request that puts a running call's question to its requester, at the question's own `site`
   * (see `questionSite`): only the requester may answer it, and it expires as requests do.
   */
  question(site: ToolCallSite, toolName: string, question: PersonQuestion): NewApproval;
}

export interface PermissionRequest {
  readonly toolName: string;
  readonly args: unknown;
  readonly argsHash: string;
  readonly toolPermission: ToolPermission;
  /** The hash binds the tool's definition too (see `hashCall`): a mismatch may be a changed tool. */
  readonly definitionBound?: boolean;
  /**
   * The call's request as the caller already read it (null: the call has none), so it is not read twice;
   * undefined when the caller did not read it.
   */
  readonly stored?: Approval | null;
}

export type DecisionSource = 'policy' | 'auto-approve' | 'grant' | 'tool' | 'approval';

export type PermissionDecision =
  | { readonly type: 'allowed'; readonly source: DecisionSource; readonly by?: string }
  | {
      readonly type: 'denied';
      readonly source: DecisionSource | 'expired';
      readonly by?: string;
      /** What happened, in words fit for the thread; the model reads it as the tool result. */
      readonly reason: string;
      /** What the model should do about it: for the model only, kept off the thread. */
      readonly guidance?: string;
    };

export type PermissionVerdict =
  | PermissionDecision
  /** A person must decide: this is the row to create. */
  | { readonly type: 'ask'; readonly approval: NewApproval }
  /** A row for this call exists and nobody has decided it yet. */
  | { readonly type: 'pending'; readonly approval: Approval };
