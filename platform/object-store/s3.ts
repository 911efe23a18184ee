import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { S3Config } from '../config.ts';
import { byteCounter, checkKey, type ObjectStore } from './types.ts';

/** Object store over any S3-compatible server; multipart upload for streams (5 MiB parts). */
export function createS3ObjectStore(cfg: S3Config): ObjectStore & { ensureBucket(): Promise<void> } {
  const client = new S3Client({
    endpoint: cfg.endpoint,
    region: cfg.region,
    forcePathStyle: cfg.forcePathStyle,
    credentials:
      cfg.accessKeyId && cfg.secretAccessKey
        ? { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey }
        : undefined,
  });
  const Bucket = cfg.bucket;
  return {
    kind: 's3',
    async ensureBucket() {
      try {
        await client.send(new CreateBucketCommand({ Bucket }));
      } catch (err) {
        const name = (err as { name?: string }).name;
        if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
      }
    },
    async put(key, body, contentType) {
      await client.send(
        new PutObjectCommand({ Bucket, Key: checkKey(key), Body: body, ContentType: contentType }),
      );
    },
    async putStream(key, body: Readable, contentType) {
      const counter = byteCounter();
      const upload = new Upload({
        client,
        params: { Bucket, Key: checkKey(key), Body: body.pipe(counter), ContentType: contentType },
        partSize: 5 * 1024 * 1024,
        queueSize: 2,
      });
      await upload.done();
      return { bytes: counter.bytes };
    },
    async getBytes(key) {
      const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
      return await res.Body!.transformToByteArray();
    },
    async getStream(key) {
      const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
      return res.Body as Readable;
    },
    async head(key) {
      try {
        const res = await client.send(new HeadObjectCommand({ Bucket, Key: checkKey(key) }));
        return res.ContentLength ?? 0;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) return undefined;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const res = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const o of res.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async presignGet(key, expiresIn, filename) {
      const cmd = new GetObjectCommand({
        Bucket,
        Key: checkKey(key),
        ResponseContentDisposition: filename
          ? `attachment; filename="${filename.replace(/"/g, '')}"`
          : undefined,
      });
      return await getSignedUrl(client, cmd, { expiresIn });
    },
  };
}
