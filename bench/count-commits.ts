import type Database from 'better-sqlite3';

/**
 * Counts commits on a better-sqlite3 connection: every outermost `db.transaction(...)` call, and every
 * write statement run outside one (SQLite commits those on their own). Wrap the connection before the
 * code under test prepares its statements; statements prepared earlier are not counted.
 */
export function countCommits(db: Database.Database): { readonly count: () => number } {
  let commits = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    if (!statement.reader) {
      const run = statement.run.bind(statement);
      statement.run = ((...args: unknown[]) => {
        const outermost = !db.inTransaction;
        const result = run(...(args as []));
        if (outermost) commits++;
        return result;
      }) as typeof statement.run;
    }
    return statement;
  }) as typeof db.prepare;
  const transaction = db.transaction.bind(db);
  db.transaction = ((work: (...args: unknown[]) => unknown) => {
    const wrapped = transaction(work);
    const counted =
      (variant: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        const outermost = !db.inTransaction;
        const result = variant(...args);
        if (outermost) commits++;
        return result;
      };
    const fn = counted(wrapped) as typeof wrapped;
    fn.deferred = counted(wrapped.deferred) as typeof wrapped.deferred;
    fn.immediate = counted(wrapped.immediate) as typeof wrapped.immediate;
    fn.exclusive = counted(wrapped.exclusive) as typeof wrapped.exclusive;
    return fn;
  }) as typeof db.transaction;
  return { count: () => commits };
}
