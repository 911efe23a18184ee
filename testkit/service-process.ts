/**
 * The service started as a user starts it, `node bin/molsearch.ts start` in a child process, on
 * free ports, waiting for the development key it prints: shared by the tests that need the real
 * start command (test/bin, test/web/e2e, the schemathesis run) and the HTTP benchmarks
 * (bench/shape/http-latency.ts, bench/shape/job-bench.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';

const START_SCRIPT = fileURLToPath(new URL('../bin/molsearch.ts', import.meta.url));

/**
 * What a started service gets unless `env` says otherwise: quiet logs, one engine thread, and no
 * Python 3D worker or 3D stages (CPU is shared; the callers that need them ask).
 */
export const SERVICE_DEFAULTS: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'warn',
  ENGINE_THREADS: '1',
  CHEM3D_WORKER: 'false',
  CATALOG_3D: 'off',
};

export interface StartServiceOptions {
  /** How long to wait for the key (default 90 s). */
  timeoutMs?: number;
  /** Also copy the service's stderr to this process's stderr as it comes (benchmarks). */
  echoStderr?: boolean;
}

/** A running `molsearch start`. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  key: string;
  out: () => string;
  temporalPort: number;
  /**
   * SIGTERM, then the exit code. A process still running after `graceMs` is killed with SIGKILL
   * (null is returned) and the tail of its output is printed, so a slow shutdown on a loaded
   * machine cannot hang a suite's cleanup, and is still visible.
   */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts on free ports with `env` (DATA_DIR, CATALOG_DIR, ...) over SERVICE_DEFAULTS and waits for
 * the printed key. A free port can be taken by another process between the probe and the
 * service's listen (suites run in parallel): a start that fails with EADDRINUSE is retried on new
 * ports, twice at most.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  o: StartServiceOptions = {},
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, o.timeoutMs ?? 90_000, o.echoStderr ?? false);
    } catch (err) {
      // The start's own port probe (platform/port-check.ts) says so in words.
      if (attempt >= 3 || !/EADDRINUSE|is in use by another process/.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(
  env: Record<string, string>,
  timeoutMs: number,
  echoStderr: boolean,
): Promise<ServiceProcess> {
  const [port, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, [START_SCRIPT, 'start'], {
    env: {
      ...process.env,
      PORT: String(port),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      ...SERVICE_DEFAULTS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => {
    out += d;
    if (echoStderr) process.stderr.write(d);
  });
  const deadline = Date.now() + timeoutMs;
  while (!/development key:\s+(\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`start exited early: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`start did not come up: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    key: /development key:\s+(\S+)/.exec(out)![1],
    url: /is up at (\S+)/.exec(out)![1],
    out: () => out,
    temporalPort,
    async stop(graceMs = 90_000) {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
      const first = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (first !== 'late') return first;
      console.warn(
        `service did not stop within ${graceMs} ms of SIGTERM; killing it. Output tail:\n${out.slice(-3000)}`,
      );
      child.kill('SIGKILL');
      await exited;
      return null;
    },
  };
}
