import { onTestFinished } from 'vitest';

/**
 * Records what would end a production process (an uncaught exception or an unhandled rejection) while
 * the current test runs. The test runner catches both itself, so without this a crash in a receiver shows
 * up as a stray error after the run rather than as the failing test that caused it.
 */
export function recordProcessFailures(): { readonly failures: readonly unknown[] } {
  const failures: unknown[] = [];
  const record = (error: unknown) => {
    failures.push(error);
  };
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  onTestFinished(() => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  });
  return { failures };
}
