import { describe, expect, it, inject, beforeAll } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  createLocalObjectStore,
  createS3ObjectStore,
  ObjectKeyError,
  type ObjectStore,
} from '../../platform/object-store/index.ts';

async function streamToString(r: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

const backends: [string, () => Promise<ObjectStore>][] = [
  ['local directory', async () => createLocalObjectStore(await mkdtemp(join(tmpdir(), 'objs-')))],
  [
    'S3 (moto server on loopback)',
    async () => {
      const s3 = createS3ObjectStore({
        endpoint: inject('s3Endpoint'),
        region: 'us-east-1',
        bucket: `t-${Date.now()}`,
        accessKeyId: 'test',
        secretAccessKey: 'test',
        forcePathStyle: true,
      });
      await s3.ensureBucket();
      return s3;
    },
  ],
];

describe.each(backends)('object store: %s', (_name, make) => {
  let store: ObjectStore;
  beforeAll(async () => {
    store = await make();
  });

  it('stores, lists, reads back and deletes objects', async () => {
    await store.put('a/b/one.txt', 'hello');
    await store.put('a/two.txt', new Uint8Array([1, 2, 3]));
    expect(await store.list('a/')).toEqual(['a/b/one.txt', 'a/two.txt']);
    expect(Buffer.from(await store.getBytes('a/b/one.txt')).toString()).toBe('hello');
    expect(await store.head('a/two.txt')).toBe(3);
    await store.delete('a/two.txt');
    expect(await store.head('a/two.txt')).toBeUndefined();
  });

  it('streams a multi-part body in and out unchanged', async () => {
    const line = 'x'.repeat(1023) + '\n';
    const parts = 12 * 1024; // 12 MiB: more than two 5 MiB multipart parts on S3
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < parts; i++) yield Buffer.from(line);
      })(),
    );
    const { bytes } = await store.putStream('big/file.txt', body);
    expect(bytes).toBe(parts * 1024);
    expect(await store.head('big/file.txt')).toBe(parts * 1024);
    const text = await streamToString(await store.getStream('big/file.txt'));
    expect(text.length).toBe(parts * 1024);
  });

  it('refuses keys that would leave the store', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '']) {
      await expect(store.put(key, 'x')).rejects.toBeInstanceOf(ObjectKeyError);
    }
  });
});
