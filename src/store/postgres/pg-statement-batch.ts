import type { PoolClient, QueryResult } from 'pg';

/** The transaction's moment, from the server's clock unless a test gives its own. */
const nowSql = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
  /** For a statement sent later whose answer someone still reads once it arrives. */
  readonly onAnswer?: (answer: QueryResult) => void;
}

/**
 * One transaction's statements on its connection, every value bound as a parameter (never written into
 * the SQL text). `BEGIN` and the clock read go out before the first statement the work needs an answer
 * from; statements nobody reads an answer from (a lock, an insert, a notice) wait and go out, in order,
 * just before the next one that is answered, or before `COMMIT`. They run in the order given, in the same
 * transaction, so nothing about what commits changes; an error in any of them fails the transaction where
 * it is next awaited, and nothing of it commits.
 */
export class StatementBatch {
  #pending: Statement[] = [];
  #sent = false;
  #begun = false;
  #now: number | undefined;

  constructor(
    private readonly client: PoolClient,
    private readonly clock: (() => number) | undefined,
  ) {}

  /** Known once the first message is answered: every statement that binds it comes after one that reads. */
  get now(): number {
    if (this.#now === undefined) {
      throw new Error('the transaction has not begun: its time is known once a statement has been answered');
    }
    return this.#now;
  }

  /** Whether any message went to the server (a failed transaction then needs a ROLLBACK). */
  get sent(): boolean {
    return this.#sent;
  }

  /** Begins now, for work whose first statement binds the moment. */
  async start(): Promise<void> {
    if (!this.#begun) await this.#send(undefined, undefined);
  }

  later(text: string, values: readonly unknown[] = [], onAnswer?: (answer: QueryResult) => void): void {
    this.#pending.push({ text, values, onAnswer });
  }

  /** Sends what waits, with this statement last, and answers with this statement's result. */
  async answer(text: string, values: readonly unknown[] = []): Promise<QueryResult> {
    const result = await this.#send({ text, values }, undefined);
    if (!result) throw new Error('a statement went unanswered');
    return result;
  }

  /** Several statements in one message, in order, each answered. */
  async answerEach(statements: readonly Statement[]): Promise<QueryResult[]> {
    const last = statements.at(-1);
    if (!last) return [];
    const answers: QueryResult[] = [];
    statements.slice(0, -1).forEach((statement, index) => {
      this.later(statement.text, statement.values, (answer) => {
        answers[index] = answer;
      });
    });
    answers[statements.length - 1] = await this.answer(last.text, last.values);
    return answers;
  }

  /** Sends what waits and the closing statement (`COMMIT`); nothing when the work sent nothing at all. */
  async finish(closing: string): Promise<boolean> {
    if (!this.#begun && this.#pending.length === 0) return false;
    await this.#send(undefined, closing);
    return true;
  }

  async #send(last: Statement | undefined, closing: string | undefined): Promise<QueryResult | undefined> {
    const pending = this.#pending;
    this.#pending = [];
    this.#sent = true;
    if (!this.#begun) {
      await this.client.query('BEGIN');
      this.#begun = true;
      this.#now = this.clock
        ? this.clock()
        : Number((await this.client.query(`SELECT ${nowSql} AS now`)).rows[0]?.now);
    }
    for (const statement of pending) {
      const answer = await this.client.query(statement.text, statement.values as unknown[]);
      statement.onAnswer?.(answer);
    }
    const result = last ? await this.client.query(last.text, last.values as unknown[]) : undefined;
    if (closing) await this.client.query(closing);
    return result;
  }
}
