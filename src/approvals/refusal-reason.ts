export type RefusalReason =
  | 'not-approver'
  /** A question a running call put to its requester: nobody else may answer it. */
  | 'not-asked'
  | 'self-approval'
  | 'no-approvers'
  | 'origin-mismatch'
  /** A click on a message that is not a recorded card, when the chat service could not be asked about it. */
  | 'origin-unconfirmed'
  | 'workspace-mismatch'
  | 'arguments-mismatch'
  /** The tool's definition changed after the card was made (an MCP server changed it). */
  | 'definition-changed';

/** Why a click changed nothing, as the audit table records it. */
export type RefusalRecord =
  | RefusalReason
  | 'unknown-request'
  | 'already-decided'
  | 'already-voted'
  /** Someone asked to see a request they are not entitled to (not its requester, approver or audience). */
  | 'not-entitled'
  /** Edited arguments that cannot be allowed (a deny rule, the tool's schema): see `checkEdit`. */
  | 'edit-refused'
  /** An edit of arguments the request no longer holds: someone else edited it first. */
  | 'arguments-changed';
