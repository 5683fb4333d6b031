/**
 * Slack's published Web API rate limits, per method, as holdfast plans its calls by them. Slack limits
 * each method per app per workspace by its tier (docs.slack.dev, "Rate limits"; each method's reference
 * page names its tier): Tier 2 about 20 calls a minute, Tier 3 about 50, Tier 4 about 100, with small
 * bursts; `chat.postMessage` about one message a second in each channel. The figures are floors ("20+"),
 * so planning by them can only be cautious; a 429 with Retry-After is still what really pauses a method.
 */
export interface MethodLimit {
  readonly tier: 2 | 3 | 4 | 'special';
  readonly perMinute: number;
  /** Calls that may go at once after a quiet spell. */
  readonly burst: number;
  /** Limited in each channel rather than across the workspace. */
  readonly perChannel?: boolean;
}

const tier = (level: 2 | 3 | 4, perMinute: number): MethodLimit => ({
  tier: level,
  perMinute,
  burst: Math.max(2, Math.ceil(perMinute / 10)),
});

const tier2 = tier(2, 20);
const tier3 = tier(3, 50);
const tier4 = tier(4, 100);

export const publishedLimits: Readonly<Record<string, MethodLimit>> = {
  'chat.startStream': tier2,
  'chat.stopStream': tier2,
  'reactions.remove': tier2,
  'usergroups.users.list': tier2,
  'chat.update': tier3,
  'reactions.add': tier3,
  'conversations.open': tier3,
  'conversations.replies': tier3,
  'conversations.history': tier3,
  'agents.sessions.setStatus': tier3,
  'chat.appendStream': tier4,
  'chat.postEphemeral': tier4,
  'users.info': tier4,
  'conversations.members': tier4,
  'views.open': tier4,
  'views.push': tier4,
  'views.publish': tier4,
  'assistant.threads.setStatus': { ...tier4, tier: 'special' },
  'chat.postMessage': { tier: 'special', perMinute: 60, burst: 3, perChannel: true },
};
