export interface WorkNotice {
  readonly conversationId: string;
  readonly turnId: string;
  /** `released`: given back unfinished (a replica shut down); `finished`: completed or failed. */
  readonly event: 'released' | 'finished';
}

export interface WorkNotices {
  /** Calls `listener` for each notice until the returned function is called. */
  subscribe(listener: (notice: WorkNotice) => void): () => void;
}
