import type { Logger } from 'pino';
import type { ChatModel } from '../agent/chat-model.js';
import type { Tool } from '../agent/tool.js';
import type { BudgetLimits } from '../agent/turn-budget.js';
import type { ApproverReach } from '../approvals/approver-reach.js';
import type { ApproverDirectory, CardLookup } from '../approvals/decide-approval.js';
import type { Policy } from '../approvals/policy.js';
import type { DeliveryPort } from '../outbox/delivery-port.js';
import type { Conversation } from '../store/records.js';
import type { AdmissionLimits } from '../store/rules/admit-turn.js';
import type { Store } from '../store/store.js';
import type { LoadPressure } from './load-pressure.js';
import type { ProcessIdentity } from './process-identity.js';
import type { TurnObserver } from './turn-observer.js';

export interface RuntimeOptions {
  readonly store: Store;
  readonly model: ChatModel;
  readonly policy: Policy;
  /** Tools offered in a conversation (the same set everywhere unless a function decides otherwise). */
  readonly tools: readonly Tool[] | ((conversation: Conversation) => readonly Tool[]);
  readonly directory: ApproverDirectory;
  /** Reads a clicked message back from the chat service when it is not a recorded card. */
  readonly cards?: CardLookup;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly newRequestId?: () => string;
  readonly newTurnId?: () => string;
  /** Who this process is in leases and claims. */
  readonly identity?: ProcessIdentity;
  readonly botName?: string;
  readonly instructions?: string;
  readonly maxConcurrentTurns?: number;
  /** How far behind the process is; turn concurrency adapts to it (see `TurnScheduler`). */
  readonly pressure?: LoadPressure;
  readonly agentCacheSize?: number;
  readonly leaseMs?: number;
  readonly maxSteps?: number;
  /** Tokens one model call may carry; older messages are left out past it (see `contextBudgetFor`). */
  readonly contextTokens?: number;
  readonly approvalExpiryMs?: number;
  /** What one turn may spend across itself and its nested agents. */
  readonly budget?: BudgetLimits;
  /** Unfinished turns a thread and a person may have; more are refused politely. */
  readonly admission?: AdmissionLimits;
  /**
   * Copies of each request in its approvers' DMs, a reminder and an escalation (see `ApproverReach`);
   * none by default. Who gets them is the delivery port's business; the runtime writes when.
   */
  readonly reach?: ApproverReach;
  /** Sends the outbox (Slack, the local workspace); without it rows wait in the store. */
  readonly delivery?: {
    readonly port: DeliveryPort;
    readonly claimMs?: number;
    readonly concurrency?: number;
    readonly backoffMs?: (attempt: number) => number;
    readonly maxAttempts?: number;
  };
  /**
   * Removes secrets from tool results before they are stored and from user messages before the model
   * sees them; built from the configured secrets in main. Defaults to the credential patterns alone.
   */
  readonly redact?: (text: string) => string;
  /**
   * Told of every turn outcome and delivery failure besides the adapter's observer (metrics, operator
   * logs); errors it throws are logged and go no further.
   */
  readonly watch?: TurnObserver;
  /**
   * What people watching a turn see of it (the Slack adapter's status reactions and live messages);
   * nothing when absent. Built before the runtime: it needs the store and the chat client, not the runtime.
   */
  readonly observer?: TurnObserver;
}
