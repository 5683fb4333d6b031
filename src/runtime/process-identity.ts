import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Who holds a lease: `host#pid#random`. The host and pid let a process tell, without waiting for the lease
 * to lapse, that a lease belongs to a process that is gone: one that died on this host (a crash, then a
 * restart), or its own previous life in a container that restarted with the same pid.
 */
export interface ProcessIdentity {
  readonly owner: string;
  /** True only when the owner is certainly gone; unknown owners (another host) count as alive. */
  ownerGone(owner: string): boolean;
}

export interface ProcessIdentityOptions {
  readonly host?: string;
  readonly pid?: number;
  readonly random?: string;
  /** Whether a pid on this host is a running process. */
  readonly isAlive?: (pid: number) => boolean;
}

export function createProcessIdentity(options: ProcessIdentityOptions = {}): ProcessIdentity {
  const host = options.host ?? hostname();
  const pid = options.pid ?? process.pid;
  const owner = `${host}#${pid}#${options.random ?? randomBytes(6).toString('hex')}`;
  const isAlive = options.isAlive ?? processIsAlive;
  return {
    owner,
    ownerGone(other) {
      if (other === owner) return false;
      const parsed = parseOwner(other);
      if (!parsed || parsed.host !== host) return false;
      // Same host and our own pid but another owner: our previous life (a container restarts at pid 1).
      if (parsed.pid === pid) return true;
      return !isAlive(parsed.pid);
    },
  };
}

function parseOwner(owner: string): { host: string; pid: number } | undefined {
  const match = /^(.+)#(\d+)#[0-9a-z]+$/i.exec(owner);
  if (!match) return undefined;
  return { host: match[1] as string, pid: Number(match[2]) };
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; only ESRCH means there is no such process.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
