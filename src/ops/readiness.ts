import { describeError } from '../errors.js';

export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects (or times out) when it does not. */
  check(): Promise<unknown>;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, 'ok' | { readonly error: string }>>;
}

export interface ReadinessOptions {
  readonly checks: readonly ReadinessCheck[];
  readonly now: () => number;
  /** A probe every second must not become a Slack call every second: answers are reused this long. */
  readonly cacheMs?: number;
  readonly timeoutMs?: number;
}

/** Readiness: every dependency answered recently. Each check's last answer is cached for `cacheMs`. */
export function createReadiness(options: ReadinessOptions): () => Promise<ReadinessReport> {
  const cacheMs = options.cacheMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const cache = new Map<string, { at: number; answer: Promise<'ok' | { error: string }> }>();
  const answer = (check: ReadinessCheck) => {
    const cached = cache.get(check.name);
    if (cached && options.now() - cached.at < cacheMs) return cached.answer;
    const fresh = withTimeout(check.check(), timeoutMs).then(
      () => 'ok' as const,
      (error: unknown) => ({ error: describeError(error) }),
    );
    cache.set(check.name, { at: options.now(), answer: fresh });
    return fresh;
  };
  return async () => {
    const answers = await Promise.all(
      options.checks.map(async (check) => [check.name, await answer(check)] as const),
    );
    return { ready: answers.every(([, result]) => result === 'ok'), checks: Object.fromEntries(answers) };
  };
}

function withTimeout<Value>(work: Promise<Value>, ms: number): Promise<Value> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
