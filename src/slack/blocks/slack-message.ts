import type { KnownBlock } from '@slack/types';

/** A message ready for `chat.postMessage` / `chat.update` / `respond`: fallback text plus blocks. */
export interface SlackMessage {
  /** Shown in notifications, search and screen readers; Slack renders the blocks instead. */
  readonly text: string;
  readonly blocks: KnownBlock[];
}
