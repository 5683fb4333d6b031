import type { CallEffects } from '../../agent/tool.js';
import type { AskedBecause } from '../../approvals/asked-because.js';

/** What an approval card shows: built from the pending approval row by the caller, never read here. */
export interface ApprovalView {
  /** Opaque; the only thing put in button values. */
  requestId: string;
  /** Fixed-length prefix of the arguments' hash; in the buttons' block id, so a click names what it saw. */
  argsFingerprint: string;
  toolName: string;
  /** e.g. shell, deploy, sql_write */
  permissionType: string;
  /** One human line, e.g. "run `rm -rf build/`". */
  summary: string;
  /** Exact arguments (pretty JSON text) shown in a code block. */
  argumentsJson: string;
  /** Slack user id. */
  requestedBy: string;
  /** Why the model wants this. */
  reason?: string;
  /** ms epoch */
  createdAt: number;
  /** ms epoch */
  expiresAt: number;
  /** Mentioned so on-call phones ring: `<@U…>`, `<!subteam^S…>`. */
  approverMentions: { users: string[]; groups: string[] };
  /** Multi-approver requests. */
  quorum?: { required: number; approvedBy: string[] };
  /**
   * Set for a question a running call put to its requester: its buttons are Answer… (or Open link…) and
   * Decline, and only the requester may press them.
   */
  question?: 'form' | 'link';
  /** Whether the arguments can be edited in a form before allowing (the card then offers Edit…). */
  editable?: boolean;
  /** Set once an approver edited the arguments: who, and the proposal (redacted JSON) they replaced. */
  edited?: { by: string; proposedJson: string };
  /** Why a person must decide: the policy rule that asked, or the tool's default. */
  askedBecause?: AskedBecause;
  /** Where the call runs and what it may change, as its tool describes it. */
  effects?: CallEffects;
  /**
   * In a view made for one person (an inbox, App Home, a DM copy): what that person may do. `decide`:
   * every button; `withdraw`: Deny only (their own request); `watch`: no buttons, the state only.
   * Undefined on a card many people see, where a click is checked instead.
   */
  viewerMay?: ViewerMay;
  /** Permalink to the thread (for inbox entries). */
  threadLink?: string;
  channelId: string;
}

export type ApprovalOutcome =
  | { type: 'allowed'; by: string; at: number; always: boolean }
  | { type: 'denied'; by: string; at: number; reason?: string }
  | { type: 'expired'; at: number };

export type ViewerMay = 'decide' | 'withdraw' | 'watch';
