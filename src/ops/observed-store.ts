import type { Logger } from 'pino';
import type { Approval } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { OpsMetrics } from './ops-metrics.js';
import { withOverrides } from './with-overrides.js';

/**
 * The store, with every decision counted and logged as it commits: clicks (through `resolve`) and the
 * expiry sweep (through `expireOverdue`) alike, in whichever process made it. Nothing else changes.
 */
export function observedStore(
  store: Store,
  deps: {
    metrics: OpsMetrics;
    logger: Logger;
    /** Called after each write that records audit rows (the audit mirror reads them). */
    audited?: () => void;
  },
): Store {
  const decided = (approval: Approval) => {
    const outcome = approval.decision ?? 'expired';
    const waitedMs = Math.max(0, (approval.resolvedAt ?? approval.createdAt) - approval.createdAt);
    deps.metrics.decisions.inc({ outcome });
    deps.metrics.decisionSeconds.observe({ outcome }, waitedMs / 1_000);
    deps.logger.info(
      {
        requestId: approval.requestId,
        turnId: approval.turnId,
        conversationId: approval.conversationId,
        decision: outcome,
        decidedBy: approval.decidedBy,
        approvedBy: approval.approvedBy,
        tool: approval.toolName,
        summary: approval.summary,
        requestedBy: approval.requestedBy,
        waitedMs,
      },
      `approval ${outcome}`,
    );
  };
  const approvals = withOverrides(store.approvals, {
    async resolve(...args) {
      const result = await store.approvals.resolve(...args);
      if (result.type === 'decided' || result.type === 'expired') decided(result.approval);
      deps.audited?.();
      return result;
    },
    async expireOverdue(...args) {
      const expired = await store.approvals.expireOverdue(...args);
      for (const approval of expired) decided(approval);
      if (expired.length > 0) deps.audited?.();
      return expired;
    },
  });
  const audit = withOverrides(store.audit, {
    async record(...args) {
      await store.audit.record(...args);
      deps.audited?.();
    },
  });
  return withOverrides(store, { approvals, audit });
}
