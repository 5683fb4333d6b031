/** How much unfinished work one thread and one person may have at once. */
export interface AdmissionLimits {
  /** Turns of one thread queued, running or waiting for approval. */
  readonly perThread: number;
  /** Turns one person started, in any thread, queued, running or waiting for approval. */
  readonly perUser: number;
}

export const defaultAdmissionLimits: AdmissionLimits = { perThread: 5, perUser: 20 };

export type Admission =
  | { readonly type: 'admit' }
  | { readonly type: 'refuse'; readonly reason: 'thread-busy' | 'user-busy'; readonly unfinished: number };

/**
 * Whether a new message may become a turn. One person (or a broken integration posting in a loop) must
 * not be able to queue a thousand turns and starve everyone else of model calls.
 */
export function admitTurn(
  unfinished: { readonly inThread: number; readonly byUser: number },
  limits: AdmissionLimits,
): Admission {
  if (unfinished.inThread >= limits.perThread)
    return { type: 'refuse', reason: 'thread-busy', unfinished: unfinished.inThread };
  if (unfinished.byUser >= limits.perUser)
    return { type: 'refuse', reason: 'user-busy', unfinished: unfinished.byUser };
  return { type: 'admit' };
}
