import fs from 'node:fs';

/** What a WAL file holds since its last reset: frames (pages written) and commits among them. */
export interface WalFrames {
  readonly frames: number;
  readonly commits: number;
  /** The frames' pages, in bytes (what was logged and fsynced). */
  readonly bytes: number;
}

const headerBytes = 32;
const frameHeaderBytes = 24;

/**
 * Reads `<database>-wal` the way SQLite's recovery does, minus the checksums: a frame belongs to the
 * current log when it carries the header's salts, and a frame whose "database size after commit" field
 * is non-zero ends a transaction. So `commits` counts the transactions that wrote pages, each one fsync
 * under `synchronous=FULL`, whatever code issued them. Valid only while nothing resets the log: open the
 * database with `wal_autocheckpoint=0` to read a whole run.
 */
export function readWalFrames(databaseFile: string): WalFrames {
  let wal: Buffer;
  try {
    wal = fs.readFileSync(`${databaseFile}-wal`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { frames: 0, commits: 0, bytes: 0 };
    throw error;
  }
  if (wal.length < headerBytes) return { frames: 0, commits: 0, bytes: 0 };
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let frames = 0;
  let commits = 0;
  for (let offset = headerBytes; offset + frameHeaderBytes + pageSize <= wal.length; ) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    frames += 1;
    if (wal.readUInt32BE(offset + 4) !== 0) commits += 1;
    offset += frameHeaderBytes + pageSize;
  }
  return { frames, commits, bytes: frames * pageSize };
}
