import type { Logger } from 'pino';
import { ApprovalPending, nonEmptyApprovals } from './approval-pending.js';
import { answerFrom, type PersonInputNeeded, questionSite } from './person-question.js';
import type { Tool, ToolContext } from './tool.js';
import { refOf, type ToolCallSite } from './tool-call-site.js';
import type { ToolBatch, ToolRuntimeDeps } from './tool-runtime.js';

// What a running call sees (its context), and how it waits when it needs its requester.

export function toolContext(
  site: ToolCallSite,
  tool: Tool,
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
): ToolContext {
  let logger: Logger | undefined;
  return {
    transcriptId: site.transcriptId,
    turnId: site.turnId,
    toolCallId: site.toolCallId,
    requestedBy: site.requestedBy,
    kv: batch.kv,
    signal: batch.signal,
    // Built only when a tool logs: most calls never do, and a child logger per call shows in profiles.
    get logger() {
      logger ??= deps.logger.child({ tool: tool.name, toolCallId: site.toolCallId });
      return logger;
    },
    runAgent: (request) => batch.runAgent(request, site),
    async answerTo(ordinal, question) {
      const where = questionSite(site.transcriptId, site.toolCallId, ordinal, question);
      const asked = await deps.store.approvals.forCall(where.transcriptId, where.toolCallId);
      return asked ? answerFrom(asked) : undefined;
    },
  };
}

/**
 * Writes the call's question as a request to its requester and suspends the turn with it. The call ended
 * without an outcome (its tool gave up waiting, so nothing after the question was done), so its ledger
 * entry goes in the same commit: on resume it starts again and finds the answer stored.
 */
export async function askRequester(
  needed: PersonInputNeeded,
  site: ToolCallSite,
  tool: Tool,
  batch: ToolBatch,
  deps: ToolRuntimeDeps,
): Promise<ApprovalPending> {
  const where = questionSite(site.transcriptId, site.toolCallId, needed.ordinal, needed.question);
  const row = deps.permissions.question({ ...site, ...where }, tool.name, needed.question);
  const approvals = await batch.suspend({
    transcriptId: where.transcriptId,
    approvals: [row],
    restartCall: refOf(site),
  });
  await deps.store.audit.record({
    actor: 'holdfast',
    kind: 'tool.asked_requester',
    conversationId: site.conversationId,
    data: {
      tool: tool.name,
      toolCallId: site.toolCallId,
      requestId: row.requestId,
      kind: needed.question.kind,
    },
  });
  return new ApprovalPending(nonEmptyApprovals(approvals), true);
}
