import type { Grant, GrantScope } from '../records.js';
import type { Effects } from './outbox-store.js';

export interface NewGrant {
  readonly scope: GrantScope;
  readonly scopeId: string;
  readonly toolName: string;
  readonly createdBy: string;
  readonly sourceRequestId?: string;
  /** Argument name → glob; absent covers every call of the tool. */
  readonly match?: Readonly<Record<string, string>>;
  /** A grant of one exact call: the hash of its arguments. */
  readonly argsHash?: string;
  readonly expiresAt?: number;
  /** How many calls it may let through; absent for no limit. */
  readonly maxUses?: number;
}

export interface GrantScopes {
  readonly conversationId: string;
  readonly channelId: string;
}

/** A call running under a grant, for the audit row. */
export interface GrantUse {
  readonly conversationId: string;
  readonly turnId: string;
  readonly toolCallId: string;
}

export interface GrantFilter {
  readonly conversationId?: string;
  readonly channelId?: string;
  /** Grants of the channel and of every thread in it. */
  readonly inChannel?: string;
  readonly createdBy?: string;
}

export interface GrantStore {
  /** Every usable grant of the tool in the conversation or its channel, patterns included, oldest first. */
  usable(toolName: string, scopes: GrantScopes): Promise<Grant[]>;
  /**
   * Lets one call through under the grant: counts a use down, audits `grant.used` and writes `effects`
   * (the notice in the thread) in one commit. Undefined, and nothing written, when the grant is no longer
   * usable (revoked, expired or used up in the meantime).
   */
  use(id: number, use: GrantUse, effects?: Effects): Promise<Grant | undefined>;
  revoke(id: number, by: string): Promise<boolean>;
  get(id: number): Promise<Grant | undefined>;
  /** Usable grants matching every filter given; no filter lists nothing. */
  list(filter: GrantFilter): Promise<Grant[]>;
}
