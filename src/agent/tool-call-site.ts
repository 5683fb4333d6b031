import type { Fence, ToolCallRef } from '../store/store.js';

/**
 * Where a tool call happens: the one record the tool runtime hands to the permission manager and the
 * tool, so the approval row is keyed by the right (transcript, tool_call_id) and every write carries the
 * turn's fence, however deeply nested the agent that made the call.
 */
export interface ToolCallSite {
  readonly conversationId: string;
  readonly channelId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly requestedBy: string;
  readonly fence: Fence;
}

/** The keys of the call's rows in the store (its ledger entry, its result). */
export function refOf(site: ToolCallSite): ToolCallRef {
  return {
    conversationId: site.conversationId,
    transcriptId: site.transcriptId,
    turnId: site.turnId,
    toolCallId: site.toolCallId,
  };
}
