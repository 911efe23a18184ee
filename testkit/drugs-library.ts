import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  libraryFromRecords,
  parseMoleculeRecords,
  type Library,
  type MoleculeRecord,
} from '../engine/selection/index.ts';

const FIXTURE = fileURLToPath(new URL('../test/fixtures/v2/chembl-drugs.smi', import.meta.url));

/** The 1,203 ChEMBL drugs fixture as molecules (SMILES, id). */
export function chemblDrugs(): { id: string; smiles: string }[] {
  return readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [smiles, id] = line.trim().split(/\s+/);
      return { smiles, id };
    });
}

export const DRUGS_INFO = {
  database_id: 'drugs',
  name: 'ChEMBL drugs (test)',
  vendor: 'test',
  website: 'https://www.ebi.ac.uk/chembl/',
  contact: '',
  release: '2024.1',
  kind: 'enumerated',
  predicted_property_ids: [],
} as const;

/**
 * An in-memory enumerated library over the fixture (database id `drugs`, release `2024.1`). The
 * RDKit parse takes seconds on a busy machine, so parsed records are cached in the temp dir,
 * keyed by the fixture's hash (a cache, not a fixture: deleting it only costs time).
 */
export async function drugsLibrary(): Promise<Library> {
  return libraryFromRecords({ ...DRUGS_INFO, predicted_property_ids: [] }, await drugsRecords());
}

/** Price of the fixture's i-th molecule in drugs-priced: every third unpriced, others 10..409 USD. */
export const drugsPrice = (i: number): number | null => (i % 3 === 0 ? null : 10 + ((i * 37) % 400));

/** The drugs molecules as library `drugs-priced`, priced by drugsPrice (price-constraint tests). */
export async function pricedDrugsLibrary(): Promise<Library> {
  return libraryFromRecords(
    {
      ...DRUGS_INFO,
      database_id: 'drugs-priced',
      name: 'ChEMBL drugs, priced (test)',
      predicted_property_ids: [],
    },
    (await drugsRecords()).map((r, i) => ({ ...r, price: drugsPrice(i) })),
  );
}

async function drugsRecords(): Promise<MoleculeRecord[]> {
  const text = readFileSync(FIXTURE);
  const cache = join(
    tmpdir(),
    `molsearch-v2-drugs-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`,
  );
  let records: MoleculeRecord[];
  if (existsSync(cache)) {
    records = (
      JSON.parse(readFileSync(cache, 'utf8')) as (Omit<MoleculeRecord, 'fp'> & { fp: string })[]
    ).map((r) => ({ ...r, fp: new Uint8Array(Buffer.from(r.fp, 'base64')) }));
  } else {
    records = await parseMoleculeRecords(chemblDrugs());
    const tmp = `${cache}.${process.pid}`;
    writeFileSync(
      tmp,
      JSON.stringify(records.map((r) => ({ ...r, fp: Buffer.from(r.fp).toString('base64') }))),
    );
    renameSync(tmp, cache);
  }
  return records;
}
