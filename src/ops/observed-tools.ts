import type { Logger } from 'pino';
import { ApprovalPending } from '../agent/approval-pending.js';
import { cutShort } from '../agent/call-outcome.js';
import type { Tool, ToolContext } from '../agent/tool.js';
import type { ToolOutput } from '../agent/tool-outcome.js';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { rootConversationOf } from '../store/sqlite/sqlite-transcript.js';
import type { Store } from '../store/store.js';
import type { OpsMetrics } from './ops-metrics.js';
import { withOverrides } from './with-overrides.js';

export interface ObservedToolsDeps {
  readonly metrics: OpsMetrics;
  readonly logger: Logger;
  readonly store: Store;
  readonly now: () => number;
}

/** How a run went, in the words of `ToolOutcome` (a nested agent's suspension besides). */
type ToolRunOutcome = 'succeeded' | 'failed' | 'stopped' | 'interrupted' | 'refused' | 'suspended';

/**
 * Each tool, timed and counted: one log line per run with its outcome and duration, the turn, the
 * conversation and the approval that let it run (if one did). The wrapper changes nothing a tool does:
 * what it returns or throws passes through untouched (ApprovalPending included, invariant 2).
 */
export function observedTools(tools: readonly Tool[], deps: ObservedToolsDeps): Tool[] {
  return tools.map((tool) => observed(tool, deps));
}

function observed(tool: Tool, deps: ObservedToolsDeps): Tool {
  return withOverrides(tool, {
    async execute(args: unknown, ctx: ToolContext): Promise<ToolOutput> {
      const started = deps.now();
      let outcome: ToolRunOutcome = 'succeeded';
      let failure: { exitCode?: number; error?: string } | undefined;
      try {
        const output = await tool.execute(args, ctx);
        if (typeof output !== 'string') {
          outcome = 'failed';
          failure = { exitCode: output.exitCode, error: output.error };
        }
        return output;
      } catch (error) {
        outcome =
          error instanceof ApprovalPending
            ? 'suspended'
            : error instanceof ToolRefusedError
              ? 'refused'
              : 'failed';
        throw error;
      } finally {
        // A run cut short reads as the runtime records it (stopped, or interrupted by a shutdown),
        // whatever the killed process returned.
        const cut = outcome === 'suspended' ? undefined : cutShort(ctx.signal);
        if (cut?.type === 'stopped' || cut?.type === 'interrupted') outcome = cut.type;
        const durationMs = deps.now() - started;
        deps.metrics.toolRuns.inc({ tool: tool.name, outcome });
        if (outcome !== 'suspended')
          deps.metrics.toolSeconds.observe({ tool: tool.name }, durationMs / 1_000);
        const approval = await deps.store.approvals
          .forCall(ctx.transcriptId, ctx.toolCallId)
          .catch(() => undefined);
        deps.logger.info(
          {
            tool: tool.name,
            outcome,
            ...failure,
            durationMs,
            requestId: approval?.requestId,
            turnId: ctx.turnId,
            conversationId: rootConversationOf(ctx.transcriptId),
            toolCallId: ctx.toolCallId,
          },
          'tool ran',
        );
      }
    },
  });
}
