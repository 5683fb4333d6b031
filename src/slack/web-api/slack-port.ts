import type { HomeView, KnownBlock, ModalView } from '@slack/types';

/**
 * The Slack Web API as holdfast uses it. One implementation (`createSlackWebApi`) wraps the real
 * `WebClient`; tests point that client at a local server or nock rather than faking this interface.
 */
export interface SlackPort {
  /** `channel` in the answer is where it landed: a user id as `channel` opens the app's DM (`D…`). */
  postMessage(message: OutgoingMessage): Promise<{ ts: string; channel: string }>;
  updateMessage(message: OutgoingMessage & { ts: string }): Promise<void>;
  postEphemeral(message: OutgoingMessage & { user: string }): Promise<void>;
  addReaction(target: ReactionTarget): Promise<void>;
  removeReaction(target: ReactionTarget): Promise<void>;
  /** Display name for a user id, cached; undefined when Slack does not know it. */
  userName(userId: string): Promise<string | undefined>;
  groupMembers(groupId: string): Promise<readonly string[]>;
  publishHome(userId: string, view: HomeView): Promise<void>;
  /** Opens a modal for the person whose interaction carried `triggerId` (valid for three seconds). */
  openView(triggerId: string, view: ModalView): Promise<void>;
  /** Puts a modal on top of the one the interaction carrying `triggerId` came from (`views.push`). */
  pushView(triggerId: string, view: ModalView): Promise<void>;
  /**
   * Who may see what a conversation holds: the members of a channel (cached briefly), or that it is a
   * direct or group DM, whose records are for their requester and approvers only.
   */
  conversationMembers(channelId: string): Promise<ConversationMembers>;
  /** For assistant threads; a no-op where the workspace does not support it. */
  setAssistantStatus(target: { channel: string; threadTs: string; status: string }): Promise<void>;
  /**
   * The thread's agent session status (`agents.sessions.setStatus`): `processing` shows Slack's working
   * indicator and its stop button, `suspended` that it waits for a person, `active` that the answer is
   * in, `closed` that it was stopped. Where the app has no agent sessions, the assistant status line stands
   * in for it (cleared for `active` and `closed`). Fails as Slack failed it (a 429 included).
   */
  setSessionStatus(target: { channel: string; threadTs: string; status: SessionStatus }): Promise<void>;
  permalink(channel: string, ts: string): Promise<string | undefined>;
  /**
   * Looks for a message holdfast posted with `deliveryKey` (carried in its metadata), in a thread or,
   * without `threadTs`, among a channel's messages since `oldest`: how a post whose answer was lost in a
   * crash is found instead of posted twice.
   */
  findDelivery(where: {
    channel: string;
    threadTs?: string;
    oldest?: string;
    deliveryKey: string;
  }): Promise<{ channel: string; ts: string } | undefined>;
  /**
   * The delivery key holdfast put in the metadata of the message at `ts` (in the thread rooted at
   * `threadTs`, or a message of its own), undefined when Slack has no such message or it carries none.
   */
  deliveryKeyAt(where: { channel: string; threadTs?: string; ts: string }): Promise<string | undefined>;
  /** The id of the app's direct message channel with a user. */
  openDirectMessage(userId: string): Promise<string>;
  /**
   * The newest `limit` messages of a thread (its root included), posted before `beforeTs` when given,
   * oldest first: what the people in it have said, for the model to read as context.
   */
  threadMessages(where: {
    channel: string;
    threadTs: string;
    beforeTs?: string;
    limit: number;
  }): Promise<readonly ThreadMessage[]>;
  /** The newest `limit` top-level messages of a conversation posted before `beforeTs`, oldest first. */
  recentMessages(where: {
    channel: string;
    beforeTs: string;
    limit: number;
  }): Promise<readonly ThreadMessage[]>;
  /**
   * Slack's answer streaming (`chat.startStream`): a reply in the thread that grows as text and task
   * chunks are appended, until it is stopped. Fails where the workspace or the conversation does not
   * support it; the caller then keeps a plain message up to date instead.
   */
  startStream(stream: StreamStart): Promise<{ ts: string; channel: string }>;
  appendStream(target: { channel: string; ts: string; chunks: readonly StreamChunk[] }): Promise<void>;
  stopStream(target: { channel: string; ts: string; chunks?: readonly StreamChunk[] }): Promise<void>;
}

export type SessionStatus = 'processing' | 'suspended' | 'active' | 'closed';

export interface ThreadMessage {
  readonly ts: string;
  /** The author; undefined for a bot or an integration. */
  readonly user: string | undefined;
  /** Set when a bot posted it (holdfast's own messages included). */
  readonly botId: string | undefined;
  readonly text: string;
}

export interface StreamStart {
  readonly channel: string;
  readonly threadTs: string;
  /** Outside a DM Slack streams to one person: the requester. */
  readonly recipientUserId: string;
  readonly recipientTeamId: string;
  readonly chunks: readonly StreamChunk[];
}

/** The chunks holdfast streams: answer text (markdown), one task per tool call, and the Stop button. */
export type StreamChunk =
  | { readonly type: 'markdown_text'; readonly text: string }
  | { readonly type: 'blocks'; readonly blocks: readonly KnownBlock[] }
  | {
      readonly type: 'task_update';
      readonly id: string;
      readonly title: string;
      readonly status: 'pending' | 'in_progress' | 'complete' | 'error';
      readonly details?: string;
    };

export type ConversationMembers =
  /** A DM or group DM. */
  | { readonly type: 'direct' }
  | { readonly type: 'channel'; readonly members: ReadonlySet<string> }
  /** Slack would not say (holdfast not in it, no scope, an error): nobody is taken for a member. */
  | { readonly type: 'unknown' };

export interface OutgoingMessage {
  readonly channel: string;
  readonly threadTs?: string;
  readonly text: string;
  readonly blocks?: readonly KnownBlock[];
  /** Names the outbox part this message delivers, in the message's metadata, so it can be found again. */
  readonly deliveryKey?: string;
}

export interface ReactionTarget {
  readonly channel: string;
  readonly ts: string;
  readonly name: string;
}
