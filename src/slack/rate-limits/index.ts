export { SlackCallBudget } from './call-budget.js';
export { type MethodLimit, publishedLimits } from './published-limits.js';
export { type CallPriority, SlackRateLimits } from './slack-rate-limits.js';
