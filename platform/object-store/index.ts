import type { Config } from '../config.ts';
import { createLocalObjectStore } from './local.ts';
import { createS3ObjectStore } from './s3.ts';
import type { ObjectStore } from './types.ts';

export * from './types.ts';
export { createLocalObjectStore, createS3ObjectStore };

/** The configured object store: S3 when S3_BUCKET is set, else the local directory. */
export async function openObjectStore(config: Pick<Config, 's3' | 'objectsDir'>): Promise<ObjectStore> {
  if (!config.s3) return createLocalObjectStore(config.objectsDir);
  const s3 = createS3ObjectStore(config.s3);
  await s3.ensureBucket();
  return s3;
}
