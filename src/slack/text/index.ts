export { escapeMrkdwn, mentionGroup, mentionUser, neutraliseCodeFences } from './escape-mrkdwn.js';
export { type MarkdownToMrkdwnOptions, markdownToMrkdwn } from './markdown-to-mrkdwn.js';
export { fallbackTime, formatSlackDate, type SlackDateOptions } from './slack-date.js';
export {
  answerMessage,
  buildAnswerMessages,
  planAnswerMessages,
  type SplitOptions,
  splitForSlack,
} from './split-message.js';
export { truncateText } from './truncate-text.js';
