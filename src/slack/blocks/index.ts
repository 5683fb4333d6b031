export { type AppHomeInput, buildAppHome } from './app-home.js';
export {
  APPROVAL_ACTION_IDS,
  type ApprovalActionKind,
  type ApprovalChoice,
  approvalActionKind,
  approvalBlockId,
  buildApprovalActions,
  type ParsedBlockId,
  parseApprovalBlockId,
} from './approval-actions.js';
export { buildApprovalCard, buildDecidedCard, type CardOptions } from './approval-card.js';
export { buildApprovalInbox, type InboxOptions } from './approval-inbox.js';
export type { ApprovalOutcome, ApprovalView, ViewerMay } from './approval-view.js';
export { buildApprovalsHelp } from './approvals-help.js';
export { buildApproverCopy } from './approver-copy.js';
export {
  ARGUMENTS_MODAL_CALLBACK_ID,
  type ArgumentsModalOptions,
  buildArgumentsModal,
} from './arguments-modal.js';
export {
  assertWithinBlockKitLimits,
  BLOCK_KIT_LIMITS,
  BlockKitLimitError,
  type BlockKitPayload,
  type BlockKitSurface,
  findBlockKitViolations,
  measureBlockText,
} from './block-kit-limits.js';
export { buildDirectNotice, explainUndeliverable } from './delivery-notice.js';
export {
  buildDenyReasonModal,
  DENY_REASON_ACTION_ID,
  DENY_REASON_BLOCK_ID,
  DENY_REASON_CALLBACK_ID,
  DENY_REASON_MAX,
} from './deny-reason-modal.js';
export { describeOutcome, type OutcomeWords } from './describe-outcome.js';
export { buildEditArgumentsModal, EDIT_CALLBACK_ID, type EditFormField } from './edit-arguments-modal.js';
export { escapeInvisible } from './escape-invisible.js';
export { buildGrantList, GRANT_REVOKE_ACTION_ID, type GrantListItem, grantLine } from './grant-list.js';
export {
  buildGrantModal,
  GRANT_ACTION_ID,
  GRANT_CALLBACK_ID,
  GRANT_FIELDS,
  type GrantCoverChoice,
  type GrantDurationChoice,
  type GrantScopeChoice,
  grantDurations,
} from './grant-modal.js';
export {
  buildGrantNotice,
  describeGrantCover,
  describeGrantScope,
  type GrantUsedNotice,
} from './grant-notice.js';
export {
  buildPlanCard,
  PLAN_ALLOW_ALL_ACTION_ID,
  type PlanItem,
  parseAllowAllValue,
  taskName,
} from './plan-card.js';
export {
  buildAnsweredQuestionCard,
  buildQuestionCard,
  buildQuestionModal,
  QUESTION_CALLBACK_ID,
  type QuestionView,
} from './question-card.js';
export {
  type FieldInput,
  QUESTION_FIELD_ACTION_ID,
  type QuestionField,
  questionFields,
  readQuestionAnswer,
} from './question-fields.js';
export type { SlackMessage } from './slack-message.js';
export { buildStoppableList, type StoppableEntry } from './stoppable-list.js';
export { buildThreadNotice, type ThreadNotice } from './thread-notice.js';
