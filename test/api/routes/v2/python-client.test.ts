import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRDKit } from '../../../../engine/chem/index.ts';
import { drugsPrice, chemblDrugs } from '../../../../testkit/drugs-library.ts';
import { startHarness, type Harness } from './harness.ts';

// The official v2 Python client (PyPI deepmedchem==0.4.0b5, requirements-test.txt), unmodified,
// against the real API listening on loopback: real PGlite, real Temporal dev server and workers.
const PYTHON = resolve('.tools/py/bin/python');
const FLOW = resolve('scripts/clients/deepmedchem_flow.py');

let h: Harness;
let home: string;
beforeAll(async () => {
  h = await startHarness({ backend: 'pglite', worker: true, concurrency: 4, pricedLibrary: true });
  await h.listen();
  home = mkdtempSync(join(tmpdir(), 'dmc-home-'));
}, 180_000);
afterAll(async () => {
  await h?.close();
  if (home) rmSync(home, { recursive: true, force: true });
}, 60_000);

interface FlowOutput {
  steps: Record<string, string>;
  facts: Record<string, any>;
}

function runFlow(): Promise<{ code: number | null; out: FlowOutput | undefined; stderr: string }> {
  return new Promise((done, fail) => {
    // HOME and XDG dirs in a temp dir: the client reads no profile or keyring of this machine.
    const child = spawn(PYTHON, [FLOW], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, 'config'),
        XDG_DATA_HOME: join(home, 'data'),
        PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring',
        DEEPMEDCHEM_API_KEY: h.keys.alice,
        MOLSEARCH_URL: h.url!,
        MOLSEARCH_DATABASE: 'drugs',
        MOLSEARCH_PRICED_DATABASE: 'drugs-priced',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      let out: FlowOutput | undefined;
      try {
        out = JSON.parse(line) as FlowOutput;
      } catch {
        out = undefined;
      }
      done({ code, out, stderr });
    });
  });
}

describe('the official v2 Python client (deepmedchem 0.4.0b5), unmodified', () => {
  it('is installed in the test venv', () => {
    expect(existsSync(PYTHON), 'run scripts/test.sh once to make .tools/py').toBe(true);
  });

  it('runs catalog, search, seeded samples, substructure, selections, runs, events, results, cancel and usage', async () => {
    const { code, out, stderr } = await runFlow();
    expect(out, stderr.slice(-4000)).toBeDefined();
    const failed = Object.entries(out!.steps).filter(([, v]) => v !== 'ok');
    expect(failed, stderr.slice(-4000)).toEqual([]);
    expect(Object.keys(out!.steps)).toEqual([
      'catalog',
      'search',
      'sample_twice_one_seed',
      'substructure',
      'selections',
      'search_where',
      'search_subset',
      'sample_filtered',
      'max_price',
      'run_with_idempotency_key',
      'events_until_terminal',
      'items_and_results',
      'run_with_3d_objective_refused',
      'search_many',
      'search_many_invalid_item',
      'cancel',
      'usage',
    ]);
    expect(code).toBe(0);

    // One pair, one score: /search, a selection and a run item give the same double.
    const { search_scores: search, selection_scores: selection, run_item_scores: item } = out!.facts;
    for (const [id, score] of Object.entries(selection as Record<string, number>)) {
      expect(search[id], id).toBe(score);
      expect(item[id], id).toBe(score);
    }
    // search_many reads each query's hits from its item's result: the same pairs, the same scores.
    const many = out!.facts.search_many_scores as Record<string, number>;
    expect(Object.keys(many)).toHaveLength(5);
    for (const [id, score] of Object.entries(many)) expect(search[id], id).toBe(score);
    // The invalid query came back as a failed item with its error, naming the item and why.
    const error = out!.facts.search_many_error as { code: string; message: string };
    expect(error.code).toBe('invalid_smiles');
    expect(error.message).toMatch(
      /item "q000002": \$\.items\[1\]\.references\[0\]\.structure\.value: could not parse SMILES/,
    );
    // Doubles, not float32 values widened: a score below 1 is not a float32 number.
    const below = Object.values(search as Record<string, number>).filter((s) => s < 1);
    expect(below.length).toBeGreaterThan(0);
    expect(below.some((s) => Math.fround(s) !== s)).toBe(true);

    // Every filtered hit meets its filter by RDKit's own descriptors of the hit's SMILES (MinimalLib
    // get_descriptors: amw, CrippenClogP, NumHBD, NumHBA, NumRotatableBonds, tpsa, FractionCSP3,
    // NumAromaticRings), not only by the values the server reported.
    const rd = await getRDKit();
    type FlowHit = { smiles: string; price: number | null };
    const rdkit = (h: FlowHit) =>
      JSON.parse(rd.get_mol(h.smiles)!.get_descriptors()) as Record<string, number>;
    const facts = out!.facts as Record<string, FlowHit[]>;
    const druglike = (d: Record<string, number>) =>
      d.amw <= 500 &&
      d.CrippenClogP >= -10 &&
      d.CrippenClogP <= 5 &&
      d.NumHBA <= 10 &&
      d.NumHBD <= 5 &&
      d.NumRotatableBonds <= 10 &&
      d.tpsa <= 140 &&
      d.FractionCSP3 >= 0.1 &&
      d.FractionCSP3 <= 0.8 &&
      d.NumAromaticRings >= 1 &&
      d.NumAromaticRings <= 5;
    const ro3 = (d: Record<string, number>) =>
      d.amw <= 300 && d.CrippenClogP <= 3 && d.NumHBD <= 3 && d.NumHBA <= 3 && d.NumRotatableBonds <= 3;
    const checks: [string, (d: Record<string, number>) => boolean][] = [
      ['where_mw', (d) => d.amw <= 400],
      ['where_logp_tpsa', (d) => d.CrippenClogP < 3 && d.tpsa >= 20 && d.tpsa <= 90],
      ['subset_druglike', druglike],
      ['subset_ro3', ro3],
      ['sample_druglike', druglike],
      ['sample_where', (d) => d.amw <= 300],
    ];
    for (const [name, ok] of checks) {
      expect(facts[name].length, name).toBeGreaterThan(0);
      for (const hit of facts[name]) expect(ok(rdkit(hit)), `${name}: ${hit.smiles}`).toBe(true);
    }
    // Prices are the fixture's (drugsPrice): at most the bound, unpriced products only when kept.
    const fixturePrices = new Set(chemblDrugs().map((_, i) => drugsPrice(i)));
    const cheap = out!.facts.max_price as (number | null)[];
    expect(cheap).toHaveLength(10);
    for (const p of cheap) expect(p !== null && p <= 100 && fixturePrices.has(p)).toBe(true);
    const kept = out!.facts.max_price_keep_unpriced as (number | null)[];
    expect(kept.some((p) => p === null)).toBe(true);
    expect(kept.every((p) => p === null || p <= 100)).toBe(true);
  }, 240_000);
});
