import type { Approval } from '../store/records.js';
import type { ClaimedTurn } from '../store/store.js';
import type { EditRefusal } from './check-edit.js';
import type { RefusalReason } from './refusal-reason.js';

export type DecisionOutcome =
  | {
      readonly type: 'decided';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'vote-recorded'; readonly approval: Approval; readonly remaining: number }
  | { readonly type: 'already-voted'; readonly approval: Approval }
  | { readonly type: 'already-decided'; readonly approval: Approval }
  | {
      readonly type: 'expired';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'refused'; readonly reason: RefusalReason; readonly approval: Approval }
  /** The edited arguments cannot be allowed; nothing changed. `problem` says why, to the approver. */
  | {
      readonly type: 'edit-refused';
      readonly reason: EditRefusal;
      readonly problem: string;
      readonly approval: Approval;
    }
  | { readonly type: 'arguments-changed'; readonly approval: Approval }
  | { readonly type: 'unknown' };
