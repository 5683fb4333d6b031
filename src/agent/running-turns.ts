import { TurnAbortedError, TurnStoppedError } from './agent-errors.js';

interface RunningTurn {
  readonly controller: AbortController;
  readonly shutdown: AbortSignal | undefined;
}

/** The turns running in this process, so a Stop can reach the model call or tool in flight. */
export class RunningTurns {
  readonly #running = new Map<string, RunningTurn>();
  /**
   * Shutdown signals already listened to. One listener per signal, whatever the number of turns: a
   * listener per turn is a leak warning past ten turns at once, and work for each one at shutdown.
   */
  readonly #heard = new WeakSet<AbortSignal>();

  /**
   * Gives a turn its own signal: shutdown or a lost lease stops this turn's model call and tools only.
   * `end` forgets the turn once its run has come to rest.
   */
  begin(turnId: string, shutdown?: AbortSignal): { readonly controller: AbortController; end(): void } {
    const controller = new AbortController();
    const turn: RunningTurn = { controller, shutdown };
    if (shutdown?.aborted) controller.abort(shuttingDown());
    else if (shutdown) this.#listen(shutdown);
    this.#running.set(turnId, turn);
    return {
      controller,
      end: () => {
        if (this.#running.get(turnId) === turn) this.#running.delete(turnId);
      },
    };
  }

  /** Aborts a turn running here with who stopped it; false when it does not run in this process. */
  stop(turnId: string, stoppedBy: string): boolean {
    const turn = this.#running.get(turnId);
    turn?.controller.abort(new TurnStoppedError(stoppedBy));
    return turn !== undefined;
  }

  #listen(shutdown: AbortSignal): void {
    if (this.#heard.has(shutdown)) return;
    this.#heard.add(shutdown);
    shutdown.addEventListener(
      'abort',
      () => {
        for (const turn of this.#running.values())
          if (turn.shutdown === shutdown) turn.controller.abort(shuttingDown());
      },
      { once: true },
    );
  }
}

const shuttingDown = () => new TurnAbortedError('holdfast is shutting down');
