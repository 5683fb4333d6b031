import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Store } from '../src/store/store.js';

/** Round trips and statements one store operation cost, summed over a run. */
export interface OperationCost {
  calls: number;
  roundTrips: number;
  statements: number;
}

/**
 * Counts what the PostgreSQL store sends, per store operation: every `query` on any `pg` client is one
 * round trip (node-postgres does not pipeline), and a parameterless text may carry several statements
 * in one simple-query message. Operations are told apart by an async context, so work running beside
 * the measured cycle (the outbox's deliveries, the sweep) is attributed to its own operation.
 */
export function countRoundTrips(): {
  readonly wrap: (store: Store) => Store;
  readonly costs: () => Map<string, OperationCost>;
  readonly reset: () => void;
  readonly restore: () => void;
} {
  const scope = new AsyncLocalStorage<string>();
  let costs = new Map<string, OperationCost>();
  const costOf = (name: string) => {
    let cost = costs.get(name);
    if (!cost) {
      cost = { calls: 0, roundTrips: 0, statements: 0 };
      costs.set(name, cost);
    }
    return cost;
  };
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args;
    const sql = typeof text === 'string' ? text : ((text as { text?: string } | undefined)?.text ?? '');
    const cost = costOf(scope.getStore() ?? '(outside the store)');
    cost.roundTrips += 1;
    cost.statements += Array.isArray(values) && values.length > 0 ? 1 : countStatements(sql);
    return query.apply(this, args);
  };

  const wrapPart = <Part extends object>(name: string, part: Part): Part =>
    new Proxy(part, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function' || typeof key !== 'string') return value;
        const operation = `${name}.${key}`;
        return (...args: unknown[]) =>
          scope.run(operation, () => {
            costOf(operation).calls += 1;
            return (value as (...inner: unknown[]) => unknown).apply(target, args);
          });
      },
    });

  return {
    wrap: (store) => ({
      ...store,
      conversations: wrapPart('conversations', store.conversations),
      turns: wrapPart('turns', store.turns),
      transcript: wrapPart('transcript', store.transcript),
      approvals: wrapPart('approvals', store.approvals),
      grants: wrapPart('grants', store.grants),
      audit: wrapPart('audit', store.audit),
      outbox: wrapPart('outbox', store.outbox),
      liveMessages: wrapPart('liveMessages', store.liveMessages),
      waiting: () => scope.run('waiting', () => store.waiting()),
      close: () => store.close(),
    }),
    costs: () => costs,
    reset: () => {
      costs = new Map();
    },
    restore: () => {
      prototype.query = query;
    },
  };
}

/** Statements in a simple-query text: split on semicolons outside quotes (good enough for our own SQL). */
function countStatements(sql: string): number {
  let count = 0;
  let quoted = false;
  let content = false;
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    if (!quoted && char === ';') {
      if (content) count += 1;
      content = false;
    } else if (!/\s/.test(char)) content = true;
  }
  return count + (content ? 1 : 0);
}
