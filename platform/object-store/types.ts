import { Transform, type Readable } from 'node:stream';

/**
 * Where bulk bytes live: job results, exports, uploads. S3 in production, a local directory as the
 * embedded default. Keys are relative paths with '/' separators; callers never build file paths.
 */
export interface ObjectStore {
  readonly kind: 's3' | 'local';
  put(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  /** Streams a body in (multipart upload on S3) without holding it in memory. */
  putStream(key: string, body: Readable, contentType?: string): Promise<{ bytes: number }>;
  getBytes(key: string): Promise<Uint8Array>;
  getStream(key: string): Promise<Readable>;
  /** Size in bytes, or undefined when the key does not exist. */
  head(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
  /** A time-limited URL the client can fetch directly, or undefined when the API must serve it. */
  presignGet(key: string, expiresInSeconds: number, filename?: string): Promise<string | undefined>;
}

export class ObjectKeyError extends Error {
  readonly code = 'invalid_object_key';
  constructor(key: string) {
    super(`invalid object key ${JSON.stringify(key)}`);
  }
}

/** Rejects keys that could escape their prefix or a local root ('..', absolute, empty segments). */
export function checkKey(key: string): string {
  if (!key || key.length > 1024 || key.startsWith('/') || key.includes('\\') || key.includes('\0'))
    throw new ObjectKeyError(key);
  for (const seg of key.split('/'))
    if (seg === '' || seg === '.' || seg === '..') throw new ObjectKeyError(key);
  return key;
}

/** A pass-through that counts bytes; attaching 'data' listeners instead would start the flow early. */
export function byteCounter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      t.bytes += chunk.length;
      cb(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}
