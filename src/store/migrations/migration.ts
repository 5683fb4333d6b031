/** One numbered schema migration; the list, and the rules for it, are in `migrations.ts`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
  /**
   * The oldest schema version whose code still works correctly on the database after this migration
   * (default: this version, i.e. older releases must not run on it). A release may be rolled back onto a
   * database up to this far ahead of it; the floor is recorded in the file so the old release can tell.
   */
  readonly compatibleFrom?: number;
}
