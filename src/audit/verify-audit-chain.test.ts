import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../store/records.js';
import { auditRowHash, canonicalJson } from '../store/rules/audit-chain.js';
import { AuditChainVerifier } from './verify-audit-chain.js';

/** A chain as a store writes it, from rows given without hashes. */
function chain(ids: readonly number[]): AuditEvent[] {
  const events: AuditEvent[] = [];
  for (const id of ids) {
    const previousHash = events.at(-1)?.hash ?? null;
    const row = {
      id,
      at: 1_000 + id,
      actor: 'U1',
      kind: 'tool.started' as const,
      approvalId: null,
      conversationId: 'c1',
      data: { n: id },
    };
    events.push({ ...row, previousHash, hash: auditRowHash(previousHash, row) });
  }
  return events;
}

function firstBreak(events: readonly AuditEvent[]) {
  const verifier = new AuditChainVerifier();
  for (const event of events) {
    const found = verifier.check(event);
    if (found) return found;
  }
  return undefined;
}

describe('canonicalJson', () => {
  it('sorts keys at every level, so key order in storage does not change a hash', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
});

describe('AuditChainVerifier', () => {
  it('accepts a chain whose ids skip where the links agree (a sequence gap)', () => {
    expect(firstBreak(chain([1, 2, 5, 6]))).toBeUndefined();
  });

  it('names a row edited and rehashed by the row after it, which no longer links', () => {
    const events = chain([1, 2, 3]);
    const edited = { ...events[1]!, actor: 'U0MALLORY' };
    events[1] = { ...edited, hash: auditRowHash(edited.previousHash, edited) };
    expect(firstBreak(events)).toEqual({ type: 'relinked', id: 3, previousId: 2 });
  });

  it('names rows removed from the start of the trail', () => {
    expect(firstBreak(chain([1, 2, 3]).slice(1))).toEqual({ type: 'removed', afterId: null, beforeId: 2 });
  });
});
