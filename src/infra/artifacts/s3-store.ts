/**
 * The S3-compatible artifact store, for fleets of workers and API processes on several machines
 * (SVC_STORAGE_S3): result files are objects `<prefix><report>/<run>.ndjson.gz` in one bucket,
 * in the local store's format. A file is written to a temporary local file as the rows stream
 * (memory stays flat) and uploaded on finish with its length, so a reader never sees half an
 * object; reading streams the object through gunzip. The AWS SDK is loaded on first use, so an
 * installation on local storage never loads it.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ArtifactStore } from '../../domain/artifacts/ports.js';
import { createLocalArtifactStore, readStoredResult } from './local-store.js';

export interface S3StorageConfig {
  bucket: string;
  prefix: string;
  region: string;
  endpoint: string | undefined;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

/** SVC_STORAGE_S3: s3://KEY:SECRET@BUCKET/PREFIX?region=R&endpoint=URL&path_style=true */
export function parseS3StorageUrl(value: string): S3StorageConfig {
  const u = new URL(value);
  if (u.protocol !== 's3:') throw new Error('must start with s3://');
  if (!u.hostname) throw new Error('must name the bucket: s3://KEY:SECRET@BUCKET/PREFIX');
  if (!u.username || !u.password) throw new Error('must carry the access key and secret: s3://KEY:SECRET@BUCKET/...');
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+/, ''));
  return {
    bucket: u.hostname, prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix,
    region: u.searchParams.get('region') ?? 'us-east-1', endpoint: u.searchParams.get('endpoint') ?? undefined,
    forcePathStyle: u.searchParams.get('path_style') === 'true',
    accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password),
  };
}

export function createS3ArtifactStore(config: S3StorageConfig): ArtifactStore & { close(): void; location: string } {
  let made: { client: S3Client; sdk: typeof S3Sdk } | undefined;
  const s3 = async () => {
    if (made) return made;
    const sdk = await import('@aws-sdk/client-s3');
    made ??= {
      sdk,
      client: new sdk.S3Client({
        region: config.region, ...(config.endpoint ? { endpoint: config.endpoint } : {}), forcePathStyle: config.forcePathStyle,
        credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
        // Streamed uploads otherwise go as aws-chunked with a trailing checksum, which not every
        // S3-compatible server understands; the object's integrity is the gzip's own CRC.
        requestChecksumCalculation: 'WHEN_REQUIRED',
      }),
    };
    return made;
  };
  const objectKey = (key: string) => `${config.prefix}${key}.ndjson.gz`;
  return {
    location: `s3://${config.bucket}/${config.prefix}`,
    async createResult(key, columns) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-upload-'));
      const local = createLocalArtifactStore(dir);
      const writer = await local.createResult(key, columns);
      const file = path.join(dir, 'results', `${key}.ndjson.gz`);
      return {
        write: (rows) => writer.write(rows),
        writeLines: (lines) => writer.writeLines(lines),
        async finish() {
          try {
            const { bytes } = await writer.finish();
            const { client, sdk: { PutObjectCommand } } = await s3();
            await client.send(new PutObjectCommand({
              Bucket: config.bucket, Key: objectKey(key), Body: createReadStream(file), ContentLength: (await stat(file)).size,
              ContentType: 'application/gzip',
            }));
            return { bytes };
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
        async abort() {
          await writer.abort();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
    async readResult(key) {
      const { client, sdk: { GetObjectCommand, NoSuchKey } } = await s3();
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: config.bucket, Key: objectKey(key) }));
        return await readStoredResult(out.Body as Readable, key);
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
        throw err;
      }
    },
    async remove(key) {
      const { client, sdk: { DeleteObjectCommand } } = await s3();
      await client.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: objectKey(key) }));
    },
    close: () => made?.client.destroy(),
  };
}
