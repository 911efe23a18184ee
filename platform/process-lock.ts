/**
 * Ownership of a directory by one process: a lock file created exclusively (`wx`) that records
 * the owner's pid and start time. A lock whose process is gone (or whose pid now belongs to a
 * process started at another time, i.e. a reused pid after a SIGKILL) is stale and is taken over.
 * Node has no flock(2); an exclusive create plus a liveness check is enough for processes of one
 * machine, which is all an embedded data directory serves.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

export interface LockOwner {
  pid: number;
  /** Start time of the process (Linux clock ticks since boot; undefined elsewhere). */
  started?: number;
  /** What the owner is ("molsearch start", "molsearch keys", ...), for the error message. */
  role: string;
  since: string;
}

export class DirectoryLockedError extends Error {
  readonly code = 'directory_locked';
  readonly path: string;
  readonly owner: LockOwner;
  constructor(path: string, owner: LockOwner) {
    super(
      `${path} is in use by process ${owner.pid} (${owner.role}, since ${owner.since}); ` +
        'one process at a time may open an embedded database. Stop that process first, or, for ' +
        '`molsearch keys`, run it while the service is up: it then goes through the service.',
    );
    this.path = path;
    this.owner = owner;
  }
}

/** The start time of `pid` from /proc (field 22 of stat), undefined when unreadable. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const v = Number(fields[19]);
    return Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** True when `pid` runs and, if `started` is known, is the same process that recorded it. */
export function processAlive(pid: number, started?: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (started === undefined) return true;
  const now = processStartTime(pid);
  return now === undefined || now === started;
}

/** The owner recorded in lock file `path` if that process is still alive, else undefined. */
export function liveOwner(path: string): LockOwner | undefined {
  let owner: LockOwner;
  try {
    owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(owner?.pid)) return undefined;
  return processAlive(owner.pid, owner.started) ? owner : undefined;
}

export interface DirectoryLock {
  readonly path: string;
  release(): void;
}

/** Takes lock file `path` for this process, or throws DirectoryLockedError naming the live owner. */
export function acquireLock(path: string, role: string): DirectoryLock {
  const me: LockOwner = {
    pid: process.pid,
    started: processStartTime(process.pid),
    role,
    since: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(me) + '\n', { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = liveOwner(path);
      if (owner) throw new DirectoryLockedError(path, owner);
      if (attempt > 0) throw new Error(`cannot take over the stale lock ${path}`, { cause: err });
      // Stale (its process died without releasing it): remove it and create ours exclusively.
      try {
        unlinkSync(path);
      } catch {
        /* another process removed it first; the exclusive create decides */
      }
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const owner = liveOwner(path);
    if (owner?.pid === process.pid)
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
  };
  // A normal exit without close() (process.exit in a CLI) must not leave a lock behind.
  process.on('exit', release);
  return { path, release };
}
