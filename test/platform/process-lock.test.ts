import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, DirectoryLockedError, processAlive } from '../../platform/process-lock.ts';

const dir = () => mkdtemp(join(tmpdir(), 'lock-'));

describe('acquireLock', () => {
  it('refuses a second owner while the first lives, naming its pid and role', async () => {
    const path = join(await dir(), 'db.lock');
    const first = acquireLock(path, 'molsearch start');
    expect(() => acquireLock(path, 'molsearch keys')).toThrow(DirectoryLockedError);
    expect(() => acquireLock(path, 'molsearch keys')).toThrow(
      new RegExp(`in use by process ${process.pid} \\(molsearch start`),
    );
    first.release();
    expect(existsSync(path)).toBe(false);
    acquireLock(path, 'again').release();
  });

  it('takes over a lock whose process is gone (SIGKILL leaves it behind)', async () => {
    const path = join(await dir(), 'db.lock');
    const dead = spawnSync('true').pid!;
    expect(processAlive(dead)).toBe(false);
    writeFileSync(path, JSON.stringify({ pid: dead, role: 'killed', since: 'then' }));
    const lock = acquireLock(path, 'new owner');
    expect(existsSync(path)).toBe(true);
    lock.release();
  });

  it('treats a reused pid (another start time) as stale', async () => {
    const path = join(await dir(), 'db.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, started: 1, role: 'old', since: 'then' }));
    acquireLock(path, 'new owner').release();
  });
});
