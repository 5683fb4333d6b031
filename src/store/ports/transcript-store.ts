import type { StoredMessage } from '../records.js';
import type { ChatMessage, ToolOutcome } from '../transcript-records.js';
import type { Fence } from './turn-claim.js';

export type ToolStartResult =
  | { readonly type: 'started' }
  /** A previous attempt started the tool and never recorded a result: its outcome is unknown. */
  | { readonly type: 'previously-started'; readonly startedAt: number };

export interface TranscriptStore {
  /**
   * The newest part of a transcript, in order: at least `maxChars` of content (or all of it), starting at
   * a user message so no exchange is cut, and always the last message. What a turn reads once, so its
   * cost follows what the model can be sent, not the thread's length.
   */
  recent(transcriptId: string, options: { maxChars: number }): Promise<ChatMessage[]>;
  append(fence: Fence, transcriptId: string, message: ChatMessage): Promise<StoredMessage>;
  /** Marks a call as running; the ledger that keeps side effects at most once across crashes. */
  startTool(
    fence: Fence,
    call: ToolCallRef & { toolName: string; argsHash: string },
  ): Promise<ToolStartResult>;
  /**
   * Records the tool message and closes the ledger entry in one transaction. A second result for the
   * same call is ignored (returns false): the first one stands. `outcome` is kept with it (see
   * `ToolOutcome`); it is read back on the message, never sent to the model.
   */
  recordToolResult(fence: Fence, call: ToolCallRef, content: string, outcome?: ToolOutcome): Promise<boolean>;
  /**
   * When the call's tool was started, if it was and no result was recorded for it: whatever it did is
   * unknown. Undefined for a call never started, or one whose result is on record.
   */
  unfinishedStart(call: Pick<ToolCallRef, 'transcriptId' | 'toolCallId'>): Promise<number | undefined>;
  /**
   * What the turn wrote to its conversation's transcript, in order: how it ended, and what it left
   * unanswered, read at a cost that follows the turn and not the thread.
   */
  turnMessages(turnId: string): Promise<ChatMessage[]>;
  /** What a turn has spent so far, in every transcript it wrote to: model replies and tool results. */
  turnUsage(turnId: string): Promise<{ modelCalls: number; toolCalls: number }>;
}

export interface ToolCallRef {
  readonly conversationId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly toolCallId: string;
}
