/**
 * The message a running turn is showing its progress in (a Slack stream, or a message kept up to date),
 * remembered so that the turn's answer replaces it instead of arriving as a second message, and so that a
 * process recovering the turn after a crash can close the one the dead process left open. Decoration, so
 * not fenced: the last writer wins.
 */
export interface LiveMessageStore {
  /** Remembers (or replaces) the live message of a turn. */
  record(turnId: string, message: LiveMessage): Promise<void>;
  get(turnId: string): Promise<LiveMessage | undefined>;
  /** The turn's answer has taken the message over (or it was closed): nothing is left to finish. */
  forget(turnId: string): Promise<void>;
}

export interface LiveMessage {
  readonly channel: string;
  readonly ts: string;
  /** `stream`: opened with `chat.startStream`, open until stopped; `message`: a post kept up to date. */
  readonly kind: 'stream' | 'message';
  /** The process that opened it: another one finding it open knows its owner is gone or gave it up. */
  readonly owner: string;
}
