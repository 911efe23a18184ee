/**
 * Chunk checkpoints under DIR/.build: each parsed chunk is saved atomically (write, then rename),
 * so a rerun of an interrupted build skips the chunks already done.
 */
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChunkResult } from './parse-chunk.ts';

export const BUILD_DIR = '.build';

const chunkFile = (dir: string, chunk: number): string =>
  join(dir, BUILD_DIR, `chunk-${String(chunk).padStart(6, '0')}.json`);

/**
 * Prepares DIR/.build for a build with these parameters: keeps existing checkpoints when they were
 * made with the same parameters (a resume), clears them otherwise.
 */
export async function prepareCheckpoints(dir: string, params: Record<string, unknown>): Promise<void> {
  const build = join(dir, BUILD_DIR);
  const want = JSON.stringify(params);
  const have = await readFile(join(build, 'params.json'), 'utf8').catch(() => undefined);
  if (have !== want) {
    await rm(build, { recursive: true, force: true });
    await mkdir(build, { recursive: true });
    await writeFile(join(build, 'params.json'), want);
  }
}

const b64 = (a: ArrayBufferView): string =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
/** Decodes base64 into a fresh (aligned) buffer. */
const unb64 = (s: string): ArrayBuffer => {
  const b = Buffer.from(s, 'base64');
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
};

/** Saves a chunk result atomically. */
export async function saveChunk(dir: string, r: ChunkResult): Promise<void> {
  const doc = {
    ...r,
    fps: Buffer.from(r.fps.buffer, r.fps.byteOffset, r.fps.byteLength).toString('base64'),
    descriptors: Array.from(r.descriptors),
    prices: r.prices.map((p) => (Number.isNaN(p) ? null : p)),
    // Predictions as raw little-endian bytes: exact, NaN kept, compact.
    admet: r.admet ? b64(r.admet) : undefined,
    ood: r.ood ? b64(r.ood) : undefined,
    features: undefined,
  };
  const file = chunkFile(dir, r.chunk);
  await writeFile(`${file}.tmp`, JSON.stringify(doc));
  await rename(`${file}.tmp`, file);
}

/** Loads a saved chunk, or undefined when it was not completed. */
export async function loadChunk(dir: string, chunk: number): Promise<ChunkResult | undefined> {
  let text: string;
  try {
    text = await readFile(chunkFile(dir, chunk), 'utf8');
  } catch {
    return undefined;
  }
  const doc = JSON.parse(text) as Omit<ChunkResult, 'fps' | 'descriptors' | 'prices' | 'admet' | 'ood'> & {
    fps: string;
    descriptors: number[];
    prices: (number | null)[];
    admet?: string;
    ood?: string;
  };
  const fps = Buffer.from(doc.fps, 'base64');
  const { admet, ood, ...rest } = doc;
  return {
    ...rest,
    ...(admet !== undefined && ood !== undefined
      ? { admet: new Float32Array(unb64(admet)), ood: new Uint32Array(unb64(ood)) }
      : {}),
    fps: new Uint8Array(fps.buffer, fps.byteOffset, fps.byteLength),
    descriptors: Float64Array.from(doc.descriptors),
    prices: doc.prices.map((p) => p ?? NaN),
  };
}

/** Whether a chunk checkpoint exists (cheap check used while streaming the input). */
export async function hasChunk(dir: string, chunk: number): Promise<boolean> {
  return access(chunkFile(dir, chunk)).then(
    () => true,
    () => false,
  );
}

/** Deletes DIR/.build after a successful build. */
export async function clearCheckpoints(dir: string): Promise<void> {
  await rm(join(dir, BUILD_DIR), { recursive: true, force: true });
}
