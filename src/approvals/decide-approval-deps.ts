import type { Logger } from 'pino';
import type { Approval } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { CardLookup } from './card-lookup.js';
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
  /** Reads a clicked message back when it is not a recorded card; without it such a click is refused. */
  readonly cards?: CardLookup;
  /**
   * The request's arguments bound to its tool's definition now, when that is no longer the one the
   * request was made for (an MCP server redefined the tool), with what changed in words for people;
   * undefined when it is the same. The card showed the old definition, so a click on it cannot allow
   * the new one.
   */
  readonly definitionChanged?: (
    approval: Approval,
  ) => Promise<{ readonly argsHash: string; readonly changed: string } | undefined>;
}
