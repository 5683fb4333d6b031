import type { ToolPermission } from './tool.js';
import type { ToolCallSite } from './tool-call-site.js';

/** Asked by the tool runtime, and only by it, before every tool call. */
export interface PermissionChecker {
  /**
   * Decides the call at `site`. Returns at once when a rule, a grant or a stored decision settles it
   * (invariant 4: on resume the stored decision comes back synchronously with no human in the loop);
   * otherwise records a pending approval and throws `ApprovalPending`.
   */
  check(site: ToolCallSite, request: PermissionRequest): Promise<PermissionDecision>;
}

export interface PermissionRequest {
  readonly toolName: string;
  readonly args: unknown;
  readonly argsHash: string;
  readonly toolPermission: ToolPermission;
}

export type DecisionSource = 'policy' | 'auto-approve' | 'grant' | 'tool' | 'approval';

export type PermissionDecision =
  | { readonly type: 'allowed'; readonly source: DecisionSource; readonly by?: string }
  | {
      readonly type: 'denied';
      readonly source: DecisionSource | 'expired';
      readonly by?: string;
      /** Told to the model as the tool result. */
      readonly reason: string;
    };
