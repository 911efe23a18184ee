import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceCatalog } from '../support/fixture-catalog.ts';
import { startServiceProcess, type ServiceProcess } from '../../testkit/service-process.ts';

// The service started as users start it (bin/molsearch.ts start: API, workers, Temporal child,
// PGlite) over a small real catalog, fuzzed from its own /openapi.json by schemathesis
// (scripts/schemathesis.sh, pinned in requirements-test.txt). Bounded: 5 cases per operation and
// phase within 90 s, so the whole file stays under about three minutes.
const ST = resolve('.tools/py/bin/st');
let service: ServiceProcess;
let dataDir: string;
let reportDir: string;
beforeAll(async () => {
  const built = await buildReferenceCatalog({ id: 'fuzzcat', take: (_m, i) => i < 60 });
  dataDir = mkdtempSync(join(tmpdir(), 'fuzz-data-'));
  reportDir = mkdtempSync(join(tmpdir(), 'fuzz-report-'));
  service = await startServiceProcess({
    DATA_DIR: dataDir,
    CATALOG_DIR: built.dir,
    BUILD_BUNDLED_CATALOGS: 'false',
  });
}, 150_000);
afterAll(async () => {
  await service?.stop();
  for (const d of [dataDir, reportDir]) if (d) rmSync(d, { recursive: true, force: true });
}, 60_000);

function fuzz(): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['scripts/schemathesis.sh', service.url, service.key, '5', '90'], {
      env: { ...process.env, REPORT_DIR: reportDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

describe('the OpenAPI document under schemathesis', () => {
  it('is installed in the test venv', () => {
    expect(existsSync(ST), 'run scripts/test.sh once to make .tools/py').toBe(true);
  });

  it('answers no server error and no status the document does not list', async () => {
    const { code, out } = await fuzz();
    const tail = out.slice(-6000);
    // Every documented operation is selected and tested (68 when this was written; more as routes land).
    const ops = /Operations:\s+(\d+) selected \/ (\d+) total/.exec(out);
    expect(ops, tail).not.toBeNull();
    expect(Number(ops![1]), tail).toBe(Number(ops![2]));
    expect(Number(ops![1]), tail).toBeGreaterThanOrEqual(68);
    expect(out, tail).toMatch(/No issues found/);
    expect(code, tail).toBe(0);
    const junit = readFileSync(join(reportDir, 'junit.xml'), 'utf8');
    const failures = [...junit.matchAll(/failures="(\d+)"/g)].map((m) => Number(m[1]));
    const errors = [...junit.matchAll(/errors="(\d+)"/g)].map((m) => Number(m[1]));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((n) => n === 0) && errors.every((n) => n === 0), tail).toBe(true);
    const cases = Number(/(\d+) generated/.exec(out)?.[1] ?? 0);
    expect(cases).toBeGreaterThan(500);
  }, 240_000);
});
