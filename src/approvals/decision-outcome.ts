import type { Approval } from '../store/records.js';
import type { ResolveResult } from '../store/store.js';
import type { EditRefusal } from './check-edit.js';
import type { RefusalReason } from './refusal-reason.js';

/** What the store's compare-and-set made of a decision, or the refusal that kept it from being tried. */
export type DecisionOutcome =
  | ResolveResult
  | { readonly type: 'refused'; readonly reason: RefusalReason; readonly approval: Approval }
  /** The edited arguments cannot be allowed; nothing changed. `problem` says why, to the approver. */
  | {
      readonly type: 'edit-refused';
      readonly reason: EditRefusal;
      readonly problem: string;
      readonly approval: Approval;
    };
