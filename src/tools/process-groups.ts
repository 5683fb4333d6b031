/** How long a group asked to end (SIGTERM) has before it is killed (SIGKILL). */
export const killGraceMs = 2_000;

/**
 * The process groups of the commands holdfast runs (each in a group of its own, so a signal to
 * holdfast's group never reaches them). Kept so that none outlives holdfast: `endAll` at shutdown ends
 * every one still running, and no command starts after it.
 */
export class ProcessGroups {
  readonly #running = new Map<number, Promise<void>>();
  #ended = false;

  /** False once holdfast is stopping: a command asked for now is not started. */
  get accepting(): boolean {
    return !this.#ended;
  }

  get size(): number {
    return this.#running.size;
  }

  /** A group led by `pid` runs until `closed` settles. */
  track(pid: number, closed: Promise<unknown>): void {
    const done = closed.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(pid, done);
    void done.then(() => {
      if (this.#running.get(pid) === done) this.#running.delete(pid);
    });
  }

  /**
   * Stops new commands and ends every group still running: SIGTERM, then SIGKILL for what is left after
   * `graceMs`. Resolves with how many there were, once each has closed.
   */
  async endAll(graceMs = killGraceMs): Promise<number> {
    this.#ended = true;
    const running = [...this.#running.entries()];
    if (running.length === 0) return 0;
    for (const [pid] of running) signalGroup(pid, 'SIGTERM');
    const killer = setTimeout(() => {
      for (const [pid] of running) signalGroup(pid, 'SIGKILL');
    }, graceMs);
    await Promise.all(running.map(([, closed]) => closed));
    clearTimeout(killer);
    return running.length;
  }
}

/** Sends `signal` to the whole group led by `pid`; a group already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
