import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileService, type FileService } from '../../../api/services/jobs-files.ts';
import { checkFormats } from '../../../api/services/jobs-downloads.ts';
import { createCatalogSearchService } from '../../../api/services/catalog-search.ts';
import { DomainError } from '../../../platform/errors.ts';
import { createLogger } from '../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../platform/object-store/index.ts';
import { openStore, type Store } from '../../../store/index.ts';
import { createSearchPool, type SearchPool } from '../../../engine/search/index.ts';
import { buildReferenceCatalog } from '../../support/fixture-catalog.ts';

// Real PGlite (upload records), a real local object store and the real search over a catalog of
// the RDKit reference molecules.
let store: Store;
let pool: SearchPool;
let files: FileService;
let dir: string;
let account: string;
beforeAll(async () => {
  const log = createLogger({ level: 'warn' });
  dir = mkdtempSync(join(tmpdir(), 'files-'));
  store = await openStore({ pgliteDir: 'memory://', tierLimits: { free: 1000 } }, log);
  const { catalog } = await buildReferenceCatalog({ id: 'refcat_f' });
  pool = createSearchPool({ threads: 1, log });
  await pool.loadCatalog(catalog);
  const search = await createCatalogSearchService({ catalogs: [catalog], pool, log });
  files = createFileService({ uploads: store.uploads, objects: createLocalObjectStore(dir), search });
  account = (await store.accounts.createApiKey({ user: 'f', tier: 'free' })).accountId;
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The thrown DomainError's first issue. */
async function issueOf(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return (err as DomainError).issues[0];
}

const search = (input: string) =>
  files.searchFile(account, {
    inputFile: input,
    smilesCol: 'smiles',
    dbNames: ['refcat_f'],
    k: 2,
    searchType: 'morgan',
  });

describe('/search_file over an uploaded file', () => {
  it('names the file, line and column of a bad SMILES, not search_input', async () => {
    const text = 'smiles,name\nCCO,ethanol\n\nC1CC,broken\n';
    await files.upload(account, 'in/bad.csv', new TextEncoder().encode(text));
    const issue = await issueOf(search('in/bad.csv'));
    expect(issue.loc).toEqual(['query', 'input_file', 4]);
    expect(issue.msg).toMatch(/"in\/bad.csv" line 4, column "smiles"/);
  });

  it('refuses a binary upload as not text, before storing it', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    const issue = await issueOf(files.upload(account, 'in/img.png', bytes));
    expect(issue.loc).toEqual(['body']);
    expect(issue.msg).toMatch(/not a text file/);
    expect((await files.list(account)).map((f) => f.path)).not.toContain('in/img.png');
    const latin1 = new Uint8Array([0x73, 0x6d, 0x69, 0x6c, 0x65, 0x73, 0x0a, 0xe9, 0xff]);
    expect((await issueOf(files.upload(account, 'in/latin1.csv', latin1))).msg).toMatch(/not a text file/);
  });

  it('searches a good file', async () => {
    await files.upload(account, 'in/good.tsv', new TextEncoder().encode('smiles\tid\nCCO\t1\nc1ccccc1\t2\n'));
    const out = await search('in/good.tsv');
    expect(out.count).toBe(2);
    expect(out.results[0].neighbors).toHaveLength(2);
  });
});

describe('download formats', () => {
  it('answers an empty file_format with a 422 naming it, not a download of no formats', () => {
    for (const empty of [[''], [' , ']]) {
      let err: unknown;
      try {
        checkFormats(empty);
      } catch (e) {
        err = e;
      }
      expect((err as DomainError).issues[0].loc).toEqual(['query', 'file_format']);
    }
    expect(checkFormats(undefined)).toEqual(['csv']);
    expect(checkFormats(['csv,SDF'])).toEqual(['csv', 'sdf']);
  });
});
