import { TurnAbortedError, TurnStoppedError } from './agent-errors.js';

/** The turns running in this process, so a Stop can reach the model call or tool in flight. */
export class RunningTurns {
  readonly #running = new Map<string, AbortController>();

  /**
   * Gives a turn its own signal: shutdown or a lost lease stops this turn's model call and tools only.
   * `end` forgets the turn once its run has come to rest.
   */
  begin(turnId: string, shutdown?: AbortSignal): { readonly controller: AbortController; end(): void } {
    const controller = new AbortController();
    const onShutdown = () => controller.abort(new TurnAbortedError('holdfast is shutting down'));
    if (shutdown?.aborted) onShutdown();
    shutdown?.addEventListener('abort', onShutdown, { once: true });
    this.#running.set(turnId, controller);
    return {
      controller,
      end: () => {
        this.#running.delete(turnId);
        shutdown?.removeEventListener('abort', onShutdown);
      },
    };
  }

  /** Aborts a turn running here with who stopped it; false when it does not run in this process. */
  stop(turnId: string, stoppedBy: string): boolean {
    const controller = this.#running.get(turnId);
    controller?.abort(new TurnStoppedError(stoppedBy));
    return controller !== undefined;
  }
}
