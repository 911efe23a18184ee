import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { byteCounter, checkKey, type ObjectStore } from './types.ts';

/** The embedded object store: files under one root; writes land atomically via a temp file. */
export function createLocalObjectStore(root: string): ObjectStore {
  const path = (key: string) => join(root, ...checkKey(key).split('/'));
  async function atomicWrite(key: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const target = path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID()}.tmp`;
    try {
      await write(tmp);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
  return {
    kind: 'local',
    async put(key, body) {
      await atomicWrite(key, (tmp) => writeFile(tmp, body));
    },
    async putStream(key, body) {
      const counter = byteCounter();
      await atomicWrite(key, (tmp) => pipeline(body, counter, createWriteStream(tmp)));
      return { bytes: counter.bytes };
    },
    async getBytes(key) {
      return new Uint8Array(await readFile(path(key)));
    },
    async getStream(key) {
      const p = path(key);
      await stat(p);
      return createReadStream(p);
    },
    async head(key) {
      try {
        return (await stat(path(key))).size;
      } catch {
        return undefined;
      }
    },
    async delete(key) {
      await rm(path(key), { force: true });
    },
    async list(prefix) {
      const out: string[] = [];
      async function walk(dir: string): Promise<void> {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const p = join(dir, e.name);
          if (e.isDirectory()) await walk(p);
          else if (!e.name.endsWith('.tmp')) out.push(relative(root, p).split(sep).join('/'));
        }
      }
      await walk(root);
      return out.filter((k) => k.startsWith(prefix)).sort();
    },
    async presignGet() {
      return undefined;
    },
  };
}
