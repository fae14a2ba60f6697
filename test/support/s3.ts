// Test support for S3 storage: a real S3-compatible server (s3rver) on loopback with its own folder, and a plain client to look inside it.
//
// s3rver checks that the access key exists (its one built-in key pair is S3RVER/S3RVER) and that presigned links have not
// expired, but it does NOT verify AWS Signature V4 signatures: a wrong secret key would still be accepted. The signing
// inputs are therefore checked separately, against an independent SigV4 computation, in test/storage-s3.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { S3StorageOptions } from "../../plugins/storage-s3";

export const S3RVER_KEY = "S3RVER";
export const S3RVER_SECRET = "S3RVER";

export type S3Server = {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  /** Creates an empty bucket through the S3 API and returns its name. */
  newBucket(): Promise<string>;
  /** Every key in a bucket, read with a client of its own rather than through the plugin under test. */
  keys(bucket: string): Promise<string[]>;
  /** Options for createS3Storage against this server and bucket (presigned links unless overridden). */
  options(bucket: string, overrides?: Partial<S3StorageOptions>): S3StorageOptions;
  /** VITRIN_* settings for a service that stores in this server's bucket. */
  env(bucket: string): Record<string, string>;
  close(): Promise<void>;
};

let bucketCounter = 0;

export async function startS3Server(): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = (bucket: string) =>
    new Bun.S3Client({ endpoint, region: "us-east-1", bucket, accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_SECRET });
  return {
    endpoint,
    async newBucket() {
      const name = `bucket-${process.pid}-${++bucketCounter}`;
      // s3rver lets an unsigned CreateBucket through, which keeps this helper free of any signing code.
      const res = await fetch(`${endpoint}/${name}`, { method: "PUT" });
      if (!res.ok) throw new Error(`s3rver refused to create bucket ${name}: ${res.status} ${await res.text()}`);
      return name;
    },
    async keys(bucket) {
      const listed = await client(bucket).list({ maxKeys: 1000 });
      return (listed.contents ?? []).map((o) => o.key).sort();
    },
    options(bucket, overrides = {}) {
      return {
        endpoint,
        region: "us-east-1",
        bucket,
        accessKeyId: S3RVER_KEY,
        secretAccessKey: S3RVER_SECRET,
        pathStyle: true,
        publicUrl: null,
        urlTtlSeconds: 3600,
        ...overrides,
      };
    },
    env(bucket) {
      return {
        VITRIN_STORAGE: "s3",
        VITRIN_S3_ENDPOINT: endpoint,
        VITRIN_S3_BUCKET: bucket,
        VITRIN_S3_ACCESS_KEY_ID: S3RVER_KEY,
        VITRIN_S3_SECRET_ACCESS_KEY: S3RVER_SECRET,
      };
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
