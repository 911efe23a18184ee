import type { TestProject } from 'vitest/node';
import { resolve } from 'node:path';
import { loadConfig } from '../platform/config.ts';
import { resolveTemporalCli } from '../platform/temporal/cli.ts';
import { startDevServer, type DevServer } from '../platform/temporal/dev-server.ts';
import { startS3Server, type S3Server } from '../testkit/s3-server.ts';
import { freePort } from '../testkit/ports.ts';

/**
 * Starts the real services the suites share: a Temporal dev server (in memory) and an
 * S3-compatible server (moto) on loopback. PostgreSQL is the machine's own (127.0.0.1:5432).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    s3Endpoint: string;
    databaseUrl: string;
  }
}

let temporal: DevServer | undefined;
let s3: S3Server | undefined;

export async function setup(project: TestProject): Promise<void> {
  const config = loadConfig();
  const cli = resolveTemporalCli({
    explicit: config.temporal.cli,
    toolsDir: resolve('.tools'),
    log: (m) => console.log(m),
  });
  const [t, s] = await Promise.all([
    startDevServer({ cli, port: await freePort(), uiPort: await freePort() }),
    startS3Server(),
  ]);
  temporal = t;
  s3 = s;
  project.provide('temporalAddress', t.address);
  project.provide('s3Endpoint', s.endpoint);
  project.provide('databaseUrl', process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
}

export async function teardown(): Promise<void> {
  await Promise.all([temporal?.stop(), s3?.stop()]);
}
