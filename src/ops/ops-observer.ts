import type { Logger } from 'pino';
import type { TurnOutcome } from '../agent/turn-runner.js';
import type { TurnObserver } from '../runtime/turn-observer.js';
import type { OutboxEntry } from '../store/outbox-message.js';
import type { OpsMetrics } from './ops-metrics.js';

/**
 * The operator's view of turns: one log line and one count per turn outcome, per approval requested and
 * per delivery given up on, each with the request, turn and conversation ids.
 */
export function opsObserver(deps: { metrics: OpsMetrics; logger: Logger }): TurnObserver {
  const { metrics, logger } = deps;
  return {
    async turnStarting() {},
    async turnSettled(outcome: TurnOutcome) {
      if (outcome.type === 'not-claimed') return;
      const turn = { turnId: outcome.turn.id, conversationId: outcome.turn.conversationId };
      metrics.turns.inc({ outcome: outcome.type.replace('-', '_') });
      switch (outcome.type) {
        case 'completed':
          logger.info(
            { ...turn, outcome: outcome.type, requestedBy: outcome.turn.requestedBy },
            'turn completed',
          );
          return;
        case 'awaiting-approval':
          for (const approval of outcome.approvals) {
            metrics.approvalsRequested.inc({ tool: approval.toolName });
            logger.info(
              {
                ...turn,
                requestId: approval.requestId,
                tool: approval.toolName,
                summary: approval.summary,
                requestedBy: approval.requestedBy,
                requiredApprovals: approval.requiredApprovals,
                expiresAt: new Date(approval.expiresAt).toISOString(),
              },
              'approval requested',
            );
          }
          logger.info(
            { ...turn, outcome: outcome.type, requestIds: outcome.approvals.map((a) => a.requestId) },
            'turn waits for approval',
          );
          return;
        case 'failed':
          logger.info({ ...turn, outcome: outcome.type, error: outcome.error }, 'turn failed');
          return;
        case 'interrupted':
          logger.info({ ...turn, outcome: outcome.type, reason: outcome.reason }, 'turn interrupted');
          return;
      }
    },
    async deliveryFailed(entry: OutboxEntry) {
      metrics.deliveriesFailed.inc();
      logger.warn(
        {
          outboxId: entry.id,
          key: entry.key,
          messageType: entry.message.type,
          attempts: entry.attempts,
          lastError: entry.lastError,
          requestId: entry.requestId,
          turnId: entry.turnId,
          conversationId: entry.conversationId,
        },
        'delivery failed: given up, the requester was told directly',
      );
    },
  };
}
