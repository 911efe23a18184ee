import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Python 3D worker (chem3d/worker.py) as a child process of the start command: its venv
 * (.tools/chem3d, RDKit and the Temporal Python SDK pinned in chem3d/requirements.txt) and its
 * lifetime. RDKit's WebAssembly build has no 3D embedding, hence Python (docs/chem3d.md).
 */

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CHEM3D_DIR = join(REPO_ROOT, 'chem3d');
const REQUIREMENTS = join(CHEM3D_DIR, 'requirements.txt');

/** Thrown when the chem3d venv cannot be provided (no python3, pip failed). */
export class Chem3dSetupError extends Error {
  constructor(reason: string) {
    super(`cannot provide the chem3d Python worker: ${reason}`);
    this.name = 'Chem3dSetupError';
  }
}

/**
 * The venv's python, created or refreshed when chem3d/requirements.txt changed since the last
 * install (the installed copy is kept beside the venv), the same as scripts/setup.sh does.
 */
export function ensureChem3dPython(opts: { toolsDir: string; log?: (m: string) => void }): string {
  const venv = join(opts.toolsDir, 'chem3d');
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, 'requirements.installed.txt');
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return python;
  const sys = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
  if (!sys) throw new Chem3dSetupError('no python3 on PATH');
  opts.log?.(`installing the chem3d worker's Python packages (RDKit, temporalio) into ${venv}`);
  const steps: [string, string[]][] = [
    [sys, ['-m', 'venv', venv]],
    [python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS]],
  ];
  for (const [cmd, args] of steps) {
    if (cmd === sys && existsSync(python)) continue;
    const res = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (res.status !== 0) throw new Chem3dSetupError(`${cmd} ${args.join(' ')} exited ${res.status}`);
  }
  writeFileSync(stamp, wanted);
  return python;
}

export interface Chem3dWorkerOptions {
  python: string;
  address: string;
  namespace: string;
  prefix: string;
  /** Catalog embedding activities at once (each one core). */
  concurrency?: number;
  /** Appends the worker's output here; undefined: inherited by the tests' output. */
  logFile?: string;
  readyTimeoutMs?: number;
}

export interface Chem3dWorker {
  pid: number;
  /** SIGTERM (running activities get 10 s), SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** SIGKILL at once: what a crash looks like (tests of resumption). */
  kill(): Promise<void>;
  exited(): boolean;
}

/** Starts chem3d/worker.py and resolves when it prints that both workers poll. */
export async function startChem3dWorker(opts: Chem3dWorkerOptions): Promise<Chem3dWorker> {
  const args = [
    join(CHEM3D_DIR, 'worker.py'),
    '--address',
    opts.address,
    '--namespace',
    opts.namespace,
    '--task-queue-prefix',
    opts.prefix,
    '--concurrency',
    String(opts.concurrency ?? 1),
  ];
  let err: number | 'inherit' = 'inherit';
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    err = openSync(opts.logFile, 'a');
  }
  const child: ChildProcess = spawn(opts.python, args, {
    stdio: ['ignore', 'pipe', err],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  let exit: string | undefined;
  const exitedP = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      exit = `code ${code} signal ${signal}`;
      r();
    }),
  );
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`chem3d worker not ready within ${opts.readyTimeoutMs ?? 60_000} ms`));
    }, opts.readyTimeoutMs ?? 60_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('chem3d worker ready')) {
        clearTimeout(timer);
        ready();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      fail(new Error(`chem3d worker exited during start-up (${exit}): ${out.slice(-500)}`));
    });
  });
  const signalAndWait = async (sig: NodeJS.Signals, graceMs: number) => {
    if (exit) return;
    child.kill(sig);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exitedP;
    clearTimeout(timer);
  };
  return {
    pid: child.pid!,
    stop: () => signalAndWait('SIGTERM', 15_000),
    kill: () => signalAndWait('SIGKILL', 1_000),
    exited: () => exit !== undefined,
  };
}
