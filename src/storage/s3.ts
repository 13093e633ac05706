import {
  S3Client,
  PutObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  CreateBucketCommand,
  HeadBucketCommand,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { checkKey, type BlobStore } from './blobstore.js';

interface S3Options {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Blobs in an S3 bucket (AWS, MinIO, s3rver...), path-style addressing by default. */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly opts: S3Options) {
    this.client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region,
      forcePathStyle: opts.forcePathStyle,
      credentials:
        opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
    });
  }

  /** Create the bucket if it is missing (local set-ups); production buckets usually exist already. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.client.send(new CreateBucketCommand({ Bucket: this.opts.bucket }));
    }
  }

  async put(key: string, data: Buffer | string, opts?: { contentType?: string }): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.opts.bucket, Key: checkKey(key), Body: data, ContentType: opts?.contentType }),
    );
  }

  async get(key: string): Promise<Buffer | null> {
    const r = await this.getStream(key);
    if (!r) return null;
    const chunks: Buffer[] = [];
    for await (const c of r.stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async getStream(key: string): Promise<{ stream: Readable; size: number } | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: checkKey(key) }));
      return { stream: r.Body as Readable, size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: checkKey(key) }));
      return { size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: checkKey(key) }));
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of r.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const r = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.opts.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      // DeleteObjects answers 200 even when some keys failed; those are listed in Errors.
      if (r.Errors?.length) {
        const e = r.Errors[0];
        throw new Error(
          `S3 DeleteObjects failed for ${r.Errors.length} key(s) under "${prefix}", e.g. "${e.Key}": ${e.Code} ${e.Message ?? ''}`.trim(),
        );
      }
    }
    return keys.length;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
