import type { Approval, Turn } from '../store/records.js';

/** Where one run of a turn comes to rest. */
export type TurnOutcome =
  | { readonly type: 'completed'; readonly turn: Turn; readonly answer: string }
  | {
      readonly type: 'awaiting-approval';
      readonly turn: Turn;
      /** The first request of the batch the turn waits on. */
      readonly approval: Approval;
      readonly approvals: readonly Approval[];
    }
  | { readonly type: 'failed'; readonly turn: Turn; readonly error: { code: string; message: string } }
  /** Nothing to do here: another process holds it, it waits on approvals or an earlier turn, or it ended. */
  | { readonly type: 'not-claimed'; readonly turnId: string; readonly reason: string }
  /** Stopped by shutdown or a lost lease; it stays `running` and is recovered from its transcript. */
  | { readonly type: 'interrupted'; readonly turn: Turn; readonly reason: string };
