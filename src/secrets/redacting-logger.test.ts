import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './create-redactor.js';
import { redactingLogger } from './redacting-logger.js';

const secret = '9b1d2f7c4e8a6b3d0f5c1e9a7d2b4f6c';

function capture() {
  const lines: string[] = [];
  const base = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
  const { redact } = createRedactor({ secrets: [{ name: 'slack signing secret', value: secret }] });
  return { logger: redactingLogger(base, redact), lines };
}

describe('redactingLogger', () => {
  it('redacts an error’s message and stack, and the causes behind it', () => {
    const { logger, lines } = capture();
    const cause = new Error(`upstream said ${secret}`);
    logger.error({ err: new Error(`signature ${secret} did not match`, { cause }) }, 'request failed');

    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as { err: { type: string; message: string; stack: string } };
    expect(line.err.type).toBe('Error');
    expect(line.err.message).toBe(
      'signature [redacted slack signing secret] did not match: upstream said [redacted slack signing secret]',
    );
    expect(line.err.stack).toContain('Error: signature [redacted slack signing secret] did not match');
  });

  it('redacts the message, interpolated arguments, nested fields and errors under any key', () => {
    const { logger, lines } = capture();
    const child = logger.child({ component: 'test' });
    child.info(`token ${secret}`);
    child.warn('value %s in a format', secret);
    child.info({ request: { headers: { 'x-signature': secret }, list: [secret] } }, 'nested');
    child.error({ failure: new TypeError(`bad ${secret}`) }, 'another key');
    child.error(new Error(`as the only argument ${secret}`));

    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).not.toContain(secret);
    expect(lines.join('\n')).toContain('[redacted slack signing secret]');
    expect(JSON.parse(lines[3]!)).toMatchObject({ failure: { type: 'TypeError' } });
  });

  it('redacts credentials of known shapes too, and leaves everything else alone', () => {
    const { logger, lines } = capture();
    logger.info({ url: `postgres://app:${'p4ssw0rd'.repeat(2)}@db/app`, count: 3, ok: true }, 'connected');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      url: 'postgres://app:[redacted password]@db/app',
      count: 3,
      ok: true,
      msg: 'connected',
    });
  });
});
