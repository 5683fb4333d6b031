import type { TestClock } from '../../../test/support/test-clock.js';
import type { OutboxEntry } from '../outbox-message.js';
import type { StoredMessage } from '../records.js';
import type { Store } from '../store.js';
import { describeApprovalCardsContract } from './approval-cards.contract.js';
import { describeApprovalDecisionsContract } from './approval-decisions.contract.js';
import { describeApprovalEditsContract } from './approval-edits.contract.js';
import { describeApprovalsContract } from './approvals.contract.js';
import { describeAuditContract } from './audit.contract.js';
import { describeBatchesContract } from './batches.contract.js';
import { describeConcurrencyContract } from './concurrency.contract.js';
import { describeFencesContract } from './fences.contract.js';
import { describeGrantsContract } from './grants.contract.js';
import { describeInboundContract } from './inbound.contract.js';
import { describeLiveMessagesContract } from './live-messages.contract.js';
import { describeOutboxContract } from './outbox.contract.js';
import { describeRestartContract } from './restart.contract.js';
import { describeTranscriptContract } from './transcript.contract.js';
import { describeTurnEndingsContract } from './turn-endings.contract.js';
import { describeTurnsContract } from './turns.contract.js';
import { describeWaitingContract } from './waiting.contract.js';

/** A ledger entry of the at-most-once tool ledger, as the inspector shows it. */
export interface ToolExecutionRecord {
  readonly transcriptId: string;
  readonly toolCallId: string;
  readonly status: 'started' | 'finished';
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

/**
 * What a contract may look at that the port does not show. Kept to what the port writes but never reads
 * back whole: every outbox row (the port only hands out the next pending one) and the tool ledger.
 */
export interface ContractInspector {
  /** Every outbox row, in the order written, whatever its status. */
  outbox(): Promise<OutboxEntry[]>;
  /** Every tool ledger entry, in the order started. */
  toolExecutions(): Promise<ToolExecutionRecord[]>;
  /** Every transcript message as stored (with its sequence number), in the order written. */
  messages(): Promise<StoredMessage[]>;
}

/** One fresh, empty, migrated database for one test, and the store(s) on it. */
export interface ContractDatabase {
  /** The clock every store on this database reads: leases, expiry and timestamps follow it. */
  readonly clock: TestClock;
  /** The first store on the database. */
  readonly store: Store;
  readonly inspect: ContractInspector;
  /** Another store on the same database, as a second process opens it. Closed when the test ends. */
  openAnother(): Promise<Store>;
  /** Closes `store` and opens the database again, as a restarted process does; returns the new store. */
  restart(): Promise<Store>;
}

/** Called inside each test; everything it opens is closed and removed when the test ends. */
export type StoreContractFactory = () => Promise<ContractDatabase>;

/**
 * The store's behaviour, specified once. Every adapter runs this with its own factory and nothing else
 * may differ between them: callers are written against these tests, not against an engine.
 */
export function describeStoreContract(factory: StoreContractFactory): void {
  describeTurnsContract(factory);
  describeLiveMessagesContract(factory);
  describeInboundContract(factory);
  describeTurnEndingsContract(factory);
  describeTranscriptContract(factory);
  describeApprovalsContract(factory);
  describeApprovalDecisionsContract(factory);
  describeApprovalEditsContract(factory);
  describeApprovalCardsContract(factory);
  describeGrantsContract(factory);
  describeAuditContract(factory);
  describeOutboxContract(factory);
  describeFencesContract(factory);
  describeConcurrencyContract(factory);
  describeRestartContract(factory);
  describeBatchesContract(factory);
  describeWaitingContract(factory);
}
