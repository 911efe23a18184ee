/**
 * Starts the real service stack for job tests (shared Temporal dev server from the global setup,
 * PGlite or PostgreSQL, local or S3 object store, a synthetic catalog) with a unique task-queue
 * prefix and data directory, plus two API keys (two users) for inject() calls.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { startStack, type Stack } from '../../../bin/stack.ts';

export interface TestStack {
  stack: Stack;
  config: Config;
  keyA: string;
  keyB: string;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `${prefix}-`));
}

/** Environment for a stack over `dataDir` and `catalogDir` (the caller adds DATABASE_URL, S3_*). */
export function stackEnv(
  dataDir: string,
  catalogDir: string,
  temporalAddress: string,
  prefix: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    CATALOG_DIR: catalogDir,
    TEMPORAL_ADDRESS: temporalAddress,
    TASK_QUEUE_PREFIX: prefix,
    PORT: '0',
    ENGINE_THREADS: '1',
    LOG_LEVEL: 'warn',
    CHEM3D_WORKER: 'false',
    CATALOG_3D: 'off',
    ...extra,
  };
}

/** Starts a stack (worker in-process unless worker: false) and creates keys for users a and b (once per database). */
export async function startTestStack(
  env: Record<string, string>,
  opts: { worker?: boolean; keys?: { keyA: string; keyB: string } } = {},
): Promise<TestStack> {
  const config = loadConfig(env);
  const log = createLogger({ level: env.LOG_LEVEL ?? 'warn', pretty: false });
  const stack = await startStack(config, log, {
    worker: opts.worker ?? true,
    ensureCatalogs: false,
    listen: false,
  });
  const keys = opts.keys ?? {
    keyA: (await stack.store.accounts.createApiKey({ user: `a-${Date.now()}`, tier: 'enterprise' })).key,
    keyB: (await stack.store.accounts.createApiKey({ user: `b-${Date.now()}`, tier: 'enterprise' })).key,
  };
  return { stack, config, ...keys };
}

/** GET/POST helper over inject(); returns status and parsed JSON body. */
export async function call(
  s: TestStack,
  method: 'GET' | 'POST',
  url: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: any; raw: string }> {
  const res = await s.stack.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(body),
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, raw: res.body };
}

/** Polls /job_status until a final status or the deadline. */
export async function waitStatus(
  s: TestStack,
  key: string,
  job: string,
  timeoutMs = 60_000,
): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(s, 'GET', `/job_status?job_name=${job}`, key);
    if (r.status !== 200) throw new Error(`job_status ${r.status}: ${r.raw}`);
    if (['SUCCESS', 'FAILURE', 'REVOKED'].includes(r.body)) return r.body;
    if (Date.now() > until) return r.body;
    await new Promise((res) => setTimeout(res, 200));
  }
}
