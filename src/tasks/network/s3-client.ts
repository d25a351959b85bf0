/**
 * The S3 operations of the five S3 tasks on the official AWS SDK. Objects are streamed both ways:
 * downloads are piped to the file, uploads go through lib-storage's Upload (multipart above one
 * part), so memory holds at most `QUEUE_SIZE` parts whatever the object's size.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { S3Options } from './s3-options.js';

/** 8 MiB parts, two in flight: at most about 16 MiB of an upload in memory. */
export const PART_SIZE = 8 * 1024 * 1024;
export const QUEUE_SIZE = 2;

// The SDK is loaded at the first S3 task, not with the module: it is about a third of a client
// command's start-up CPU (0.2-0.3 s for masend, msend, send and the server alike), and most hosts
// run no S3 task (docs/performance-log.md, 2026-11-27).
const load = createRequire(import.meta.url);
let sdk: typeof ClientS3 | undefined;
let storage: typeof LibStorage | undefined;
function s3(): typeof ClientS3 {
  return (sdk ??= load('@aws-sdk/client-s3') as typeof ClientS3);
}

/**
 * A client for the endpoint. Path-style addressing except on AWS itself (S3-compatible servers
 * such as MinIO expect it, as the original's MinIO client chooses); the region is the
 * environment's (`AWS_REGION`) or us-east-1, and AWS redirects to the bucket's region are followed.
 * Checksums only when an operation requires them: S3-compatible servers often refuse the newer ones.
 */
export function s3Client(o: S3Options): ClientS3.S3Client {
  const host = new URL(o.url).hostname;
  return new (s3().S3Client)({
    endpoint: o.url,
    region: process.env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: !host.endsWith('amazonaws.com'),
    followRegionRedirects: true,
    credentials: { accessKeyId: o.accessKey, secretAccessKey: o.secretKey },
    maxAttempts: 3,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A readable message of an SDK failure (its code and text; never the request's credentials). */
export function s3ErrorText(err: unknown): string {
  if (err instanceof Error) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const code = (err as { code?: string }).code;
    const name = err.name !== 'Error' ? err.name : code ?? 'Error';
    return `${name}${status ? ` (HTTP ${status})` : ''}: ${err.message || 'no message'}`;
  }
  return String(err);
}

/** Downloads an object into `path`. */
export async function downloadObject(client: ClientS3.S3Client, bucket: string, key: string, path: string): Promise<void> {
  const res = await client.send(new (s3().GetObjectCommand)({ Bucket: bucket, Key: key }));
  if (!(res.Body instanceof Readable)) throw new Error(`object ${key} came without a body`);
  await pipeline(res.Body, createWriteStream(path));
}

/** The object's tags, filtered to `keys` unless null (all). */
export async function objectTags(client: ClientS3.S3Client, bucket: string, key: string, keys: string[] | null): Promise<Record<string, string>> {
  const res = await client.send(new (s3().GetObjectTaggingCommand)({ Bucket: bucket, Key: key }));
  const out: Record<string, string> = {};
  for (const tag of res.TagSet ?? []) {
    if (tag.Key !== undefined && (keys === null || keys.includes(tag.Key))) out[tag.Key] = tag.Value ?? '';
  }
  return out;
}

/** Creates the bucket when it does not exist (HEAD answers 404). */
export async function ensureBucket(client: ClientS3.S3Client, bucket: string): Promise<boolean> {
  try {
    await client.send(new (s3().HeadBucketCommand)({ Bucket: bucket }));
    return false;
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status !== 404 && (err as Error).name !== 'NotFound') throw err;
  }
  await client.send(new (s3().CreateBucketCommand)({ Bucket: bucket }));
  return true;
}

/** Uploads `path` as `key`, streamed in parts. */
export async function uploadObject(client: ClientS3.S3Client, bucket: string, key: string, path: string): Promise<void> {
  storage ??= load('@aws-sdk/lib-storage') as typeof LibStorage;
  const upload = new storage.Upload({ client, params: { Bucket: bucket, Key: key, Body: createReadStream(path) }, partSize: PART_SIZE, queueSize: QUEUE_SIZE, leavePartsOnError: false });
  await upload.done();
}

export async function setObjectTags(client: ClientS3.S3Client, bucket: string, key: string, tags: Array<[string, string]>): Promise<void> {
  await client.send(new (s3().PutObjectTaggingCommand)({ Bucket: bucket, Key: key, Tagging: { TagSet: tags.map(([Key, Value]) => ({ Key, Value })) } }));
}

export async function deleteObject(client: ClientS3.S3Client, bucket: string, key: string): Promise<void> {
  await client.send(new (s3().DeleteObjectCommand)({ Bucket: bucket, Key: key }));
}
