import type { Logger } from 'pino';

/**
 * A failure that escapes every handler is logged and the process keeps serving. That is safe here because
 * no work lives only in memory: every turn, approval and tool call is a row, written before the step that
 * depends on it, and boot recovery and the sweep resume whatever a failed handler left half done. Exiting
 * instead would drop every other thread's request in flight, and under a supervisor that restarts on exit
 * one malformed request repeated would become a crash loop.
 */
export function keepServingAfterEscapedFailures(target: NodeJS.EventEmitter, logger: Logger): void {
  target.on('uncaughtException', (error: unknown) => {
    logger.error({ err: error }, 'uncaught exception; still serving');
  });
  target.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection; still serving');
  });
}
