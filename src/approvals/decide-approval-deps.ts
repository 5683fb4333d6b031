import type { Logger } from 'pino';
import type { Approval } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { EditCheck } from './check-edit.js';
import type { Policy } from './policy.js';

/** Who is in a user group; Slack's `usergroups.users.list` behind a cache, in production. */
export interface ApproverDirectory {
  groupMembers(groupId: string): Promise<readonly string[]>;
  /** A person's name (`users.info` behind a cache); absent where names cannot be looked up. */
  userName?(userId: string): Promise<string | undefined>;
}

export interface DecideApprovalDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
  /** Checks an approver's edited arguments (see `checkEdit`); needed only for decisions with an edit. */
  readonly checkEdit?: (approval: Approval, edited: unknown) => Promise<EditCheck>;
}
