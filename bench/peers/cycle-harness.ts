import type { PeerDatabaseOptions } from './open-peer-database.js';

/** One framework's approval cycle, as the peers benchmark drives it. */
export interface CycleHarness {
  /** Commits on the framework's connection so far (see `countCommits`). */
  readonly commits: () => number;
  /** mention → suspend on approval → stored → decision → resumed → answer, in a new thread. */
  cycle(thread: string): Promise<void>;
  /** Waits for work a cycle left running beside the next one (holdfast's card rewrites). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export type BuildCycleHarness = (file: string, options: PeerDatabaseOptions) => Promise<CycleHarness>;
