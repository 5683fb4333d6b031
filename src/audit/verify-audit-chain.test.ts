import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../store/records.js';
import { auditRowHash, canonicalJson } from '../store/rules/audit-chain.js';
import { type AuditAnchor, AuditChainVerifier, parseAuditAnchor } from './verify-audit-chain.js';

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

function firstBreak(events: readonly AuditEvent[], anchor?: AuditAnchor) {
  const verifier = new AuditChainVerifier(anchor);
  for (const event of events) {
    const found = verifier.check(event);
    if (found) return found;
  }
  return verifier.finish();
}

/** The whole chain recomputed from `ids`, as someone who can write to the database could. */
function rechained(events: readonly AuditEvent[], ids: readonly number[]): AuditEvent[] {
  const kept = events.filter((event) => ids.includes(event.id));
  const out: AuditEvent[] = [];
  for (const event of kept) {
    const previousHash = out.at(-1)?.hash ?? null;
    out.push({ ...event, previousHash, hash: auditRowHash(previousHash, event) });
  }
  return out;
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

  describe('against an anchor held elsewhere', () => {
    const events = chain([1, 2, 3, 4]);
    const anchorAt = (id: number): AuditAnchor => ({ id, hash: events[id - 1]!.hash });

    it('passes where the anchored row still has its hash, rows after it or not', () => {
      expect(firstBreak(events, anchorAt(2))).toBeUndefined();
      expect(firstBreak(events, anchorAt(4))).toBeUndefined();
    });

    it('names rows removed from the end, which the chain alone passes', () => {
      expect(firstBreak(events.slice(0, 2))).toBeUndefined();
      expect(firstBreak(events.slice(0, 2), anchorAt(4))).toEqual({
        type: 'anchor-missing',
        id: 4,
        nextId: null,
      });
    });

    it('names an anchored row removed and the chain recomputed around it, which the chain alone passes as a gap', () => {
      const relinked = rechained(events, [1, 2, 4]);
      expect(firstBreak(relinked)).toBeUndefined();
      expect(firstBreak(relinked, anchorAt(3))).toEqual({ type: 'anchor-missing', id: 3, nextId: 4 });
    });

    it('names a chain rewritten up to the anchor and recomputed, which the chain alone passes', () => {
      const rewritten = rechained(
        events.map((event) => (event.id === 2 ? { ...event, actor: 'U0MALLORY' } : event)),
        [1, 2, 3, 4],
      );
      expect(firstBreak(rewritten)).toBeUndefined();
      expect(firstBreak(rewritten, anchorAt(3))).toEqual({ type: 'anchor-changed', id: 3 });
    });
  });
});

describe('parseAuditAnchor', () => {
  it('reads <row id>:<hash> as verify prints a last row, and nothing else', () => {
    const hash = 'a'.repeat(64);
    expect(parseAuditAnchor(`12:${hash}`)).toEqual({ id: 12, hash });
    expect(parseAuditAnchor(` 12:${hash}\n`)).toEqual({ id: 12, hash });
    expect(parseAuditAnchor(`12:${'A'.repeat(64)}`)).toBeUndefined();
    expect(parseAuditAnchor('12:abc')).toBeUndefined();
    expect(parseAuditAnchor(hash)).toBeUndefined();
  });
});
