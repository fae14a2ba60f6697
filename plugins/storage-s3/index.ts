// Storage in an S3-compatible bucket (AWS S3, MinIO, Garage, R2…) through Bun's built-in S3 client; clients fetch files from the bucket, never through vitrin.
import { S3Client } from "bun";
import { attachment, ConfigError, contentTypeOf, definePlugin, downloadFileName, isSafeKey, type ReadyReport, type StoragePlugin } from "../../src/plugins";
import { s3Settings, type S3Settings } from "./settings";

/** The connection settings as declared in settings.ts, and how links are made. */
export type S3StorageOptions = Pick<S3Settings, "endpoint" | "region" | "bucket" | "accessKeyId" | "secretAccessKey" | "pathStyle" | "urlTtlSeconds"> & {
  /** When set, url() gives plain links under it (a public bucket or a CDN in front of it) instead of presigned ones. */
  publicUrl: string | null;
  /** How long ready() waits for the bucket before calling it unreachable. */
  readyTimeoutMs?: number;
};

/** The endpoint Bun's client is given: with virtual-hosted style it must already carry the bucket in its host name. */
export function clientEndpoint(o: Pick<S3StorageOptions, "endpoint" | "region" | "bucket" | "pathStyle">): string {
  const url = new URL(o.endpoint ?? `https://s3.${o.region}.amazonaws.com`);
  if (!o.pathStyle && o.bucket && !url.hostname.startsWith(`${o.bucket}.`)) url.hostname = `${o.bucket}.${url.hostname}`;
  return url.toString().replace(/\/+$/, "");
}

/** S3 answers a missing key with NoSuchKey (GET) or a bare 404 (HEAD); both mean "not there". */
function isMissing(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === "NoSuchKey" || code === "NotFound";
}

function describeError(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  const message = (e as Error)?.message ?? String(e);
  return typeof code === "string" && code !== "" && !message.includes(code) ? `${code}: ${message}` : message;
}

export function createS3Storage(options: S3StorageOptions): StoragePlugin {
  const endpoint = clientEndpoint(options);
  const where = `bucket "${options.bucket}" at ${endpoint}`;
  let client: S3Client | null = null;
  const s3 = (): S3Client => {
    if (!client) throw new Error("storage-s3 is used before init()");
    return client;
  };

  return {
    slot: "storage",
    name: "s3",
    async init() {
      const missing = (
        [
          ["VITRIN_S3_BUCKET", options.bucket],
          ["VITRIN_S3_ACCESS_KEY_ID", options.accessKeyId],
          ["VITRIN_S3_SECRET_ACCESS_KEY", options.secretAccessKey],
        ] as const
      )
        .filter(([, value]) => !value)
        .map(([name]) => name);
      if (missing.length > 0) throw new ConfigError(`VITRIN_STORAGE=s3 needs ${missing.join(", ")}`);
      // Every value is passed explicitly: left out, Bun would quietly fall back to S3_*/AWS_* environment variables.
      client = new S3Client({
        endpoint,
        region: options.region,
        bucket: options.bucket!,
        accessKeyId: options.accessKeyId!,
        secretAccessKey: options.secretAccessKey!,
        virtualHostedStyle: !options.pathStyle,
      });
    },
    async ready(): Promise<ReadyReport> {
      const timeoutMs = options.readyTimeoutMs ?? 5000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        // Listing one key is the cheapest request that proves the endpoint, the bucket and the keys all work.
        await Promise.race([
          s3().list({ maxKeys: 1 }),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { ok: true };
      } catch (e) {
        return { ok: false, detail: `${where}: ${describeError(e)}` };
      } finally {
        clearTimeout(timer);
      }
    },
    async put(key, body, contentType) {
      if (!isSafeKey(key)) throw new Error(`invalid storage key: ${key}`);
      // A PUT only becomes visible once complete, so there is no half-written object to hide; Bun switches to a
      // multipart upload for large bodies, streaming a Bun.file part by part.
      await s3().write(key, body, { type: contentType });
    },
    async get(key) {
      if (!isSafeKey(key)) return null;
      const file = s3().file(key);
      let info;
      try {
        info = await file.stat();
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
      // The S3File is lazy: its bytes are downloaded (or streamed) only when the caller reads the body.
      return { body: file, size: info.size, contentType: info.type || contentTypeOf(key) };
    },
    async delete(key) {
      if (!isSafeKey(key)) return;
      try {
        await s3().delete(key);
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
    },
    url(key, asked) {
      // A public link cannot name its download: S3 takes response-content-disposition only on a signed request.
      if (options.publicUrl) return `${options.publicUrl}/${key}`;
      // Bun signs it into the link as response-content-disposition, which the bucket answers as Content-Disposition.
      const named = asked?.download === undefined ? {} : { contentDisposition: attachment(downloadFileName(asked.download, key)) };
      return s3().presign(key, { method: "GET", expiresIn: options.urlTtlSeconds, ...named });
    },
  };
}

export default definePlugin({
  slot: "storage",
  name: "s3",
  description: "Files in an S3-compatible bucket; links are presigned, or plain ones under {cdn_url} when VITRIN_S3_URLS=public.",
  settings: s3Settings,
  create: ({ config, settings }) =>
    createS3Storage({
      endpoint: settings.endpoint,
      region: settings.region,
      bucket: settings.bucket,
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      pathStyle: settings.pathStyle,
      publicUrl: settings.urls === "public" ? config.cdnUrl : null,
      urlTtlSeconds: settings.urlTtlSeconds,
    }),
});
