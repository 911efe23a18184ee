import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from './ports.ts';

export interface S3Server {
  endpoint: string;
  stop(): Promise<void>;
}

/** Python with moto[server]: the project's test venv if present, else the system python3. */
function python(): string {
  const venv = resolve('.tools/py/bin/python');
  return existsSync(venv) ? venv : 'python3';
}

/** Starts moto's S3-compatible server process on loopback and waits until it answers. */
export async function startS3Server(): Promise<S3Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(python(), ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`moto server exited: ${stderr}`);
    try {
      const res = await fetch(`${endpoint}/`);
      if (res.status < 500) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto server did not start on ${endpoint}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    async stop() {
      if (exited) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await done;
    },
  };
}
