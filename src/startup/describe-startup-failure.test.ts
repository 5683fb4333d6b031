import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { DatabaseLockedError } from '../store/store-errors.js';
import { describeStartupFailure } from './describe-startup-failure.js';

describe('describeStartupFailure', () => {
  it('gives a foreseen failure in its own words, with no stack', () => {
    const text = describeStartupFailure(new ConfigError('SLACK_BOT_TOKEN: expected a bot token'), {
      debug: false,
    });
    expect(text).toBe('SLACK_BOT_TOKEN: expected a bot token');
  });

  it('names HOLDFAST_DB for a database that cannot be used', () => {
    expect(describeStartupFailure(new DatabaseLockedError('/data/holdfast.db'), { debug: false })).toMatch(
      /^database \(HOLDFAST_DB\): Database \/data\/holdfast\.db is locked by another process\./,
    );
  });

  it('names PORT for a listen failure it did not foresee where', () => {
    const error = Object.assign(new Error('listen EADDRINUSE: address already in use :::8080'), {
      code: 'EADDRINUSE',
      syscall: 'listen',
      port: 8080,
    });
    expect(describeStartupFailure(error, { debug: false })).toMatch(
      /^port: PORT=8080 \(a listener\) is already in use by another process\. .*set PORT to a free port\.$/,
    );
  });

  it('points at debug for anything unforeseen, and shows the stack only with debug', () => {
    const error = new TypeError('cannot read properties of undefined');
    const quiet = describeStartupFailure(error, { debug: false });
    expect(quiet).toBe(
      'cannot read properties of undefined\n(This was not expected; start with HOLDFAST_LOG_LEVEL=debug to see where it happened.)',
    );
    expect(quiet).not.toMatch(/^\s+at /m);
    expect(describeStartupFailure(error, { debug: true })).toMatch(/^\s+at /m);
  });
});
