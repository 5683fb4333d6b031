import { type Logger, stdSerializers } from 'pino';

const MAX_DEPTH = 8;

/**
 * A child of `logger` whose every line is redacted: the message, every string field at any depth, and
 * errors under any key (their message, stack and causes included), which are serialised here first so
 * what pino prints is what was redacted. Children of the returned logger inherit all of it.
 */
export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  return logger.child(
    {},
    {
      formatters: { log: (fields) => redactFields(fields, redact) },
      serializers: {
        // Already serialised and redacted by the formatter above, which pino runs first.
        err: (value: unknown) => value,
        msg: (value: unknown) => (typeof value === 'string' ? redact(value) : value),
      },
    },
  );
}

function redactFields(fields: object, redact: (text: string) => string): Record<string, unknown> {
  const seen = new WeakSet<object>();
  const visit = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redact(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Object]';
    seen.add(value);
    if (value instanceof Error) return visit({ ...stdSerializers.err(value) }, depth);
    if (Array.isArray(value)) return value.map((item) => visit(item, depth + 1));
    if (!isPlainObject(value)) return visit(jsonForm(value), depth);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = visit(item, depth + 1);
    return out;
  };
  return visit(fields, 0) as Record<string, unknown>;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What pino would print for a class instance (a URL, a Buffer, a client), as data that can be walked. */
function jsonForm(value: object): unknown {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : JSON.parse(json);
  } catch {
    return '[Unserializable]';
  }
}
