import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureWebBuild } from '../../../scripts/build-web.ts';
import { launchChromium, type Chromium } from '../../../scripts/browser.ts';
import { buildReferenceCatalog, referenceTanimoto, type Reference } from '../../support/fixture-catalog.ts';
import { startServiceProcess, type ServiceProcess } from '../../../testkit/service-process.ts';

/**
 * The web app as a chemist uses it: the real service started as `molsearch start` on embedded
 * defaults (Temporal dev server, PGlite, local object store) over a catalog of the Python-RDKit
 * reference molecules, driven in headless Chromium. Scores and atom counts are checked against
 * the Python RDKit reference values, not against the service's own answers.
 */
let service: ServiceProcess;
let browser: Chromium;
let page: Page;
let reference: Reference;
let ids: Map<string, number>;
let queryIndex: number;
const requests: { url: string; headers: Record<string, string> }[] = [];

/** The k best reference Tanimoto scores to molecule `q` over the catalog (Python RDKit bits). */
function referenceTop(q: number, k: number): number[] {
  const bits = reference.molecules[q].on_bits;
  return [...ids.values()]
    .map((i) => referenceTanimoto(bits, reference.molecules[i].on_bits))
    .sort((a, b) => b - a)
    .slice(0, k);
}

beforeAll(async () => {
  await ensureWebBuild({ log: () => {} });
  const built = await buildReferenceCatalog({ id: 'webcat', name: 'Web test catalog' });
  reference = built.reference;
  ids = built.ids;
  // A drug-sized, single-component query that is itself in the catalog.
  queryIndex = [...ids.values()].find((i) => {
    const m = reference.molecules[i];
    return m.descriptors.heavy_atoms >= 14 && m.descriptors.heavy_atoms <= 24 && !m.input.includes('.');
  })!;
  service = await startServiceProcess({
    DATA_DIR: await mkdtemp(join(tmpdir(), 'web-e2e-data-')),
    CATALOG_DIR: built.dir,
    BUILD_BUNDLED_CATALOGS: 'false',
  });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(30_000);
  page.on('request', (r) => requests.push({ url: r.url(), headers: r.headers() }));
  await page.goto(`${service.url}/#/account`);
  await page.getByLabel('API key').fill(service.key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.getByText('Today’s usage').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, 150_000);

const cards = () => page.locator('.grid .card');
const scoresShown = () => cards().evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-score'))));

describe('the web app in a real browser', () => {
  it('is served at / beside the API, with the documentation and the OpenAPI document still answering', async () => {
    const index = await fetch(`${service.url}/`);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(await index.text()).toContain('<div id="app">');
    expect((await fetch(`${service.url}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${service.url}/docs`)).status).toBe(200);
    expect((await fetch(`${service.url}/available_databases`)).status).toBe(401);
  });

  it('shows usage and remaining budget from /rate_limit_status after the key is pasted', async () => {
    const status = (await (
      await fetch(`${service.url}/rate_limit_status`, { headers: { 'X-API-Key': service.key } })
    ).json()) as { remaining: number; account_type: string };
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    const remaining = async () => Number((await page.getByTestId('remaining').innerText()).replace(/,/g, ''));
    // The page reads the status afresh (a counted request), so it shows fewer than we were told.
    await expect.poll(remaining).toBeLessThan(status.remaining);
    expect(await remaining()).toBeGreaterThan(status.remaining - 10);
    await page.getByText(status.account_type, { exact: true }).waitFor();
  });

  it('turns a SMILES into a grid of depicted results, scored as Python RDKit scores them', async () => {
    const query = reference.molecules[queryIndex];
    await page.goto(`${service.url}/#/search`);
    await page.getByLabel('Query structure (SMILES)').fill(query.input);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.grid .card img.depiction').nth(29).waitFor();
    expect(await cards().count()).toBe(30);
    const scores = await scoresShown();
    const expected = referenceTop(queryIndex, 30);
    scores.forEach((s, i) => expect(s).toBeCloseTo(expected[i], 6));
    expect(await cards().first().getAttribute('data-id')).toMatch(/^REF-\d+$/);
    // Depictions are SVG drawn in the browser by RDKit, shown as images.
    const src = await cards().first().locator('img').getAttribute('src');
    const svg = decodeURIComponent(src!.replace(/^data:image\/svg\+xml;charset=utf-8,/, ''));
    expect(svg).toMatch(/<svg[\s\S]*class='bond-0/);
    // Comparing the best hit (the query itself) highlights a common substructure of every heavy atom.
    await cards().first().click();
    const note = page.getByText(/maximum common substructure \((\d+) atoms\)/);
    await note.waitFor();
    expect(Number(/\((\d+) atoms\)/.exec(await note.innerText())![1])).toBe(query.descriptors.heavy_atoms);
    await page.getByRole('button', { name: 'Close' }).click();
    // The key went in a header, never in an address.
    expect(requests.some((r) => r.url.includes(service.key))).toBe(false);
    const search = requests.find((r) => new URL(r.url).pathname === '/molsearch')!;
    expect(search.headers['x-api-key']).toBe(service.key);
  }, 120_000);

  it('sorts and filters the results in place', async () => {
    await page.getByLabel('Sort by').selectOption('molecular_weight');
    await page.getByRole('button', { name: /Descending; switch to ascending/ }).click();
    const weights = await cards().evaluateAll((els) =>
      els.map((e) => Number(/MW ([\d.]+)/.exec(e.textContent ?? '')?.[1])),
    );
    expect(weights).toEqual([...weights].sort((a, b) => a - b));
    await page.getByRole('button', { name: '+ Range' }).click();
    await page
      .getByRole('group', { name: 'Range filter 1' })
      .getByLabel('Property')
      .selectOption('molecular_weight');
    await page.getByRole('group', { name: 'Range filter 1' }).getByLabel('Maximum').fill('200');
    const kept = await cards().evaluateAll((els) =>
      els.map((e) => Number(/MW ([\d.]+)/.exec(e.textContent ?? '')?.[1])),
    );
    expect(kept.length).toBe(weights.filter((w) => w <= 200.5).length);
    expect(Math.max(...kept)).toBeLessThanOrEqual(200.5);
  });

  it('takes a structure from the editor and works from the keyboard', async () => {
    const query = reference.molecules[queryIndex];
    await page.getByLabel('Query structure (SMILES)').fill(query.input);
    await page.getByRole('button', { name: 'Draw…' }).click();
    await page.locator('.editor-host canvas').first().waitFor();
    await page.getByRole('button', { name: 'Use this structure' }).click();
    expect(await page.getByLabel('Query structure (SMILES)').inputValue()).not.toBe('');
    await page.getByRole('button', { name: 'Search', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.grid .card img.depiction').nth(29).waitFor();
    // The editor handed back the same molecule: the best hit is the query itself.
    expect(Number(await cards().first().getAttribute('data-score'))).toBeCloseTo(1, 9);
    const firstId = await cards().first().getAttribute('data-id');
    await cards().first().focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog.compare-dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.getAttribute("data-id")')).toBe(firstId);
  }, 120_000);

  it('shows a clear message naming the field for a SMILES RDKit cannot read', async () => {
    const invalid = (reference as Reference & { invalid: string[] }).invalid;
    const bad = invalid.find((s) => /^[A-Za-z0-9()=#+-]+$/.test(s))!;
    await page.goto(`${service.url}/#/search`);
    await page.getByLabel('Query structure (SMILES)').fill(bad);
    await expect
      .poll(() => page.locator('#smiles-hint').innerText())
      .toContain('RDKit cannot read this SMILES');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('search_input');
    expect(text).toContain('could not parse SMILES');
    expect(await page.getByLabel('Query structure (SMILES)').getAttribute('aria-invalid')).toBe('true');
  });

  it('takes a job from submission to a downloaded CSV file', async () => {
    const query = reference.molecules[queryIndex];
    await page.goto(`${service.url}/#/search`);
    await page.getByLabel('Query structure (SMILES)').fill(query.input);
    await page.getByText('Larger search as a job').click();
    await page.getByLabel('Neighbours').fill('40');
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.waitForURL(/#\/jobs\/job_/);
    await page.getByTestId('job-status').getByText('SUCCESS').waitFor({ timeout: 90_000 });
    await page.locator('.grid .card img.depiction').nth(39).waitFor();
    const expected = referenceTop(queryIndex, 40);
    (await scoresShown()).forEach((s, i) => expect(s).toBeCloseTo(expected[i], 5));
    await page.getByRole('button', { name: 'Prepare files' }).click();
    await page.getByTestId('download-status').getByText('READY').waitFor({ timeout: 90_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split(/\r?\n/);
    const header = lines[0].split(',');
    expect(header).toEqual(expect.arrayContaining(['smiles', 'id', 'similarity']));
    expect(lines.length).toBe(41);
    const sim = header.indexOf('similarity');
    lines.slice(1).forEach((l, i) => expect(Number(l.split(',')[sim])).toBeCloseTo(expected[i], 5));
  }, 180_000);

  it('watches a v2 run over server-sent events until it finishes, then shows its results', async () => {
    const molecules = [...ids.entries()]
      .filter(([, i]) => !reference.molecules[i].input.includes('.'))
      .slice(0, 150)
      .map(([id, i]) => `${reference.molecules[i].input} q-${id}`);
    await page.goto(`${service.url}/#/runs`);
    await page.getByLabel(/Query molecules, one per line/).fill(molecules.join('\n'));
    await page.getByLabel('Hits per molecule').fill('2');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    // Sample what the page shows while the run goes on: events must appear before it ends.
    const seen: { events: number; status: string }[] = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const s = await page.evaluate<{ events: number; status: string }>(`({
        events: document.querySelectorAll('[data-testid=event-log] li').length,
        status: document.querySelector('[data-testid=run-status]')?.textContent ?? '',
      })`);
      seen.push(s);
      if (/completed|failed|cancelled/.test(s.status) && s.events > 0) break;
      if (Date.now() > deadline) throw new Error(`run did not finish: ${JSON.stringify(seen.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 40));
    }
    const final = seen[seen.length - 1];
    expect(final.status).toBe('completed');
    expect(seen.some((s) => s.status === 'running' && s.events > 0 && s.events < final.events)).toBe(true);
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const run = (await (
      await fetch(`${service.url}/api/v2/runs/${runId}`, { headers: { 'x-api-key': service.key } })
    ).json()) as { last_event_sequence: number };
    const types = await page
      .locator('[data-testid=event-log] li')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
    expect(types.length).toBe(run.last_event_sequence);
    expect(types[0]).toBe('run.started');
    expect(types[types.length - 1]).toBe('run.completed');
    expect(types.filter((t) => t === 'item.succeeded').length).toBe(150);
    const stream = requests.find((r) => r.url.endsWith(`/api/v2/runs/${runId}/events/stream`))!;
    expect(stream.headers.accept).toBe('text/event-stream');
    expect(stream.headers['x-api-key']).toBe(service.key);
    await page.locator('.item-result').first().locator('img.depiction').nth(1).waitFor();
    expect(await page.locator('.item-result').first().locator('.card-id').count()).toBe(2);
  }, 180_000);
});
