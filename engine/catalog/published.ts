/**
 * Catalogs in an object store: the key layout, `publishCatalog` (local directory → object store,
 * every file with its SHA-256) and `openPublishedCatalog` (the manifest back, verified). The store
 * is any object with the few methods below: the platform's S3 or local-directory store fits it
 * structurally, so the engine never imports the AWS SDK.
 *
 * Layout under `catalogs/<id>/`: `manifest.json`, the shard files named by the manifest, sidecar
 * files next to them (any other `*.arrow`, e.g. `shard-00000.3d.arrow`), `rejects.tsv` when
 * present, and last `publication.json`, which lists every file with its size and SHA-256. A reader
 * starts from publication.json, so it never sees a manifest whose shards are not uploaded yet.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CatalogError } from './errors.ts';
import { validateManifest } from './reader.ts';
import { MANIFEST_FILE, type CatalogManifest } from './schema.ts';
import type { ShardObjectRef } from './shard-cache.ts';

export const PUBLICATION_FORMAT = 'molsearch-catalog-publication/1';
export const PUBLICATION_FILE = 'publication.json';
/** Key prefix of every published catalog. */
export const CATALOGS_PREFIX = 'catalogs/';

/** What publishing and opening need of an object store (the platform's ObjectStore has it all). */
export interface CatalogObjectStore {
  put(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  putStream(key: string, body: Readable, contentType?: string): Promise<{ bytes: number }>;
  getBytes(key: string): Promise<Uint8Array>;
  head(key: string): Promise<number | undefined>;
  list(prefix: string): Promise<string[]>;
}

export interface PublishedFile {
  file: string;
  bytes: number;
  sha256: string;
}

/** publication.json: the files of one published catalog, written after all of them are uploaded. */
export interface Publication {
  format: typeof PUBLICATION_FORMAT;
  id: string;
  published_at: string;
  files: PublishedFile[];
}

/** The object key of a catalog file. */
export function catalogKey(id: string, file: string): string {
  if (!/^[\w.-]+$/.test(id) || !/^[\w.-]+$/.test(file))
    throw new CatalogError(
      'catalog_format',
      `bad catalog id or file name ${JSON.stringify(`${id}/${file}`)}`,
    );
  return `${CATALOGS_PREFIX}${id}/${file}`;
}

const isSidecar = (name: string): boolean => name.endsWith('.arrow') || name === 'rejects.tsv';

/** SHA-256 and size of a file, streamed (shards can be larger than memory should hold at once). */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** A pass-through that hashes what flows through it (the upload is checked against the local hash). */
function hashing(): Transform & { sha256(): string } {
  const hash = createHash('sha256');
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      cb(null, chunk);
    },
  }) as Transform & { sha256(): string };
  t.sha256 = () => hash.digest('hex');
  return t;
}

export interface PublishOptions {
  /** The catalog directory (holding manifest.json). */
  dir: string;
  store: CatalogObjectStore;
  /** Progress per file. */
  log?: { info(obj: object, msg?: string): void };
}

export interface PublishResult {
  id: string;
  files: PublishedFile[];
  /** Files uploaded in this run; the others were already in the store with the same checksum. */
  uploaded: number;
  bytesUploaded: number;
}

/**
 * Uploads a built catalog: first every shard is checked against the SHA-256 in its manifest (a
 * damaged local catalog is refused with CatalogError('catalog_corrupt') before anything is sent),
 * then each file is streamed to the store (multipart on S3), its bytes hashed on the way, and
 * publication.json goes last. A rerun skips files the previous publication already lists with the
 * same checksum and size, so an interrupted publish resumes.
 */
export async function publishCatalog(opts: PublishOptions): Promise<PublishResult> {
  const { dir, store } = opts;
  let manifest: CatalogManifest;
  try {
    manifest = validateManifest(JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')), dir);
  } catch (err) {
    if (err instanceof CatalogError) throw err;
    throw new CatalogError('catalog_not_found', `no readable catalog manifest in ${dir}`, { cause: err });
  }
  const shardFiles = new Set(manifest.shards.map((s) => s.file));
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && !e.name.startsWith('.') && e.name !== MANIFEST_FILE)
    .map((e) => e.name)
    .filter((n) => shardFiles.has(n) || isSidecar(n))
    .sort();
  for (const s of manifest.shards)
    if (!names.includes(s.file))
      throw new CatalogError('catalog_corrupt', `${dir}: shard ${s.file} is missing`);
  const files: PublishedFile[] = [];
  for (const file of [...names, MANIFEST_FILE]) {
    const h = await hashFile(join(dir, file));
    const want = manifest.shards.find((s) => s.file === file)?.sha256;
    if (want && want !== h.sha256)
      throw new CatalogError('catalog_corrupt', `${dir}: ${file} does not match the SHA-256 in its manifest`);
    files.push({ file, ...h });
  }
  const previous = await readPublication(store, manifest.id).catch(() => undefined);
  let uploaded = 0;
  let bytesUploaded = 0;
  for (const f of files) {
    const key = catalogKey(manifest.id, f.file);
    const same = previous?.files.find((p) => p.file === f.file);
    if (same && same.sha256 === f.sha256 && (await store.head(key)) === f.bytes) continue;
    const h = hashing();
    const { bytes } = await store.putStream(key, createReadStream(join(dir, f.file)).pipe(h));
    if (bytes !== f.bytes || h.sha256() !== f.sha256)
      throw new CatalogError('catalog_corrupt', `${f.file} changed while it was being published`);
    uploaded++;
    bytesUploaded += bytes;
    opts.log?.info({ catalog: manifest.id, file: f.file, bytes }, 'uploaded');
  }
  const publication: Publication = {
    format: PUBLICATION_FORMAT,
    id: manifest.id,
    published_at: new Date().toISOString(),
    files,
  };
  await store.put(
    catalogKey(manifest.id, PUBLICATION_FILE),
    JSON.stringify(publication, null, 1),
    'application/json',
  );
  return { id: manifest.id, files, uploaded, bytesUploaded };
}

/** Reads and checks catalogs/<id>/publication.json; CatalogError('catalog_not_found' | 'catalog_format'). */
export async function readPublication(store: CatalogObjectStore, id: string): Promise<Publication> {
  let text: string;
  try {
    text = Buffer.from(await store.getBytes(catalogKey(id, PUBLICATION_FILE))).toString('utf8');
  } catch (err) {
    if (err instanceof CatalogError) throw err;
    throw new CatalogError('catalog_not_found', `catalog ${id} is not published in the object store`, {
      cause: err,
    });
  }
  let p: Partial<Publication>;
  try {
    p = JSON.parse(text) as Partial<Publication>;
  } catch (err) {
    throw new CatalogError('catalog_format', `catalog ${id}: publication.json is not JSON`, { cause: err });
  }
  const ok =
    p.format === PUBLICATION_FORMAT &&
    p.id === id &&
    Array.isArray(p.files) &&
    p.files.every(
      (f) =>
        typeof f.file === 'string' &&
        /^[\w.-]+$/.test(f.file) &&
        Number.isInteger(f.bytes) &&
        /^[0-9a-f]{64}$/.test(f.sha256),
    ) &&
    p.files.some((f) => f.file === MANIFEST_FILE);
  if (!ok)
    throw new CatalogError('catalog_format', `catalog ${id}: publication.json is not ${PUBLICATION_FORMAT}`);
  return p as Publication;
}

/** Ids of the catalogs published in the store (those with a publication.json), sorted. */
export async function listPublishedCatalogs(store: CatalogObjectStore): Promise<string[]> {
  const keys = await store.list(CATALOGS_PREFIX);
  return keys
    .filter((k) => k.endsWith(`/${PUBLICATION_FILE}`))
    .map((k) => k.slice(CATALOGS_PREFIX.length, -PUBLICATION_FILE.length - 1))
    .filter((id) => !id.includes('/'))
    .sort();
}

export interface PublishedCatalog {
  id: string;
  manifest: CatalogManifest;
  publication: Publication;
  /** The object of shard i, with the checksum a cache verifies it against. */
  shardRef(i: number): ShardObjectRef;
  /** The object of any published file (sidecars), or undefined when it was not published. */
  fileRef(file: string): ShardObjectRef | undefined;
}

/**
 * Opens a published catalog: publication.json, then the manifest, whose bytes must match the
 * SHA-256 the publication lists (CatalogError('catalog_corrupt') otherwise) and which is validated
 * like a local one. Shards are not fetched here; a shard cache fetches them on demand by shardRef.
 */
export async function openPublishedCatalog(store: CatalogObjectStore, id: string): Promise<PublishedCatalog> {
  const publication = await readPublication(store, id);
  const entry = publication.files.find((f) => f.file === MANIFEST_FILE)!;
  const bytes = await store.getBytes(catalogKey(id, MANIFEST_FILE));
  if (createHash('sha256').update(bytes).digest('hex') !== entry.sha256)
    throw new CatalogError(
      'catalog_corrupt',
      `catalog ${id}: manifest.json does not match its published SHA-256`,
    );
  const where = `object store ${CATALOGS_PREFIX}${id}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new CatalogError('catalog_format', `catalog ${where}: manifest is not JSON`, { cause: err });
  }
  const manifest = validateManifest(parsed, where);
  if (manifest.id !== id)
    throw new CatalogError('catalog_format', `catalog ${where}: manifest id is ${manifest.id}`);
  const fileRef = (file: string): ShardObjectRef | undefined => {
    const f = publication.files.find((x) => x.file === file);
    return f && { key: catalogKey(id, f.file), sha256: f.sha256, bytes: f.bytes };
  };
  return {
    id,
    manifest,
    publication,
    shardRef(i) {
      const s = manifest.shards[i];
      if (!s) throw new RangeError(`catalog ${id} has no shard ${i}`);
      const ref = fileRef(s.file);
      if (!ref || ref.sha256 !== s.sha256)
        throw new CatalogError(
          'catalog_corrupt',
          `catalog ${id}: shard ${s.file} is not published with its manifest checksum`,
        );
      return ref;
    },
    fileRef,
  };
}
