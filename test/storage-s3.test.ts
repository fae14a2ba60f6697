// storage-s3 beyond the shared conformance suite: request signing (a download name's too) checked against an
// independent SigV4 computation, settings refused at init and in config, readiness when the bucket is missing or
// unreachable, presigned links expiring.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { clientEndpoint, createS3Storage, type S3StorageOptions } from "../plugins/storage-s3";
import { ConfigError, loadConfig } from "../src/config";
import { readPluginSettings } from "../src/plugins";
import { s3Settings } from "../plugins/storage-s3/settings";
import { startS3Server, type S3Server } from "./support/s3";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

// AWS's own example credentials from the Signature V4 documentation.
const ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";
const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");
const hmac = (key: string | Buffer, s: string) => createHmac("sha256", key).update(s).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature AWS Signature V4 gives a presigned GET (query-string auth, only `host` signed, unsigned payload). */
function presignSignature(url: URL, secretKey: string): string {
  const params = [...url.searchParams.entries()].filter(([name]) => name !== "X-Amz-Signature");
  const query = params
    .map(([name, value]) => [rfc3986(name), rfc3986(value)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const canonicalRequest = ["GET", url.pathname, query, `host:${url.host}`, "", "host", "UNSIGNED-PAYLOAD"].join("\n");
  const amzDate = url.searchParams.get("X-Amz-Date")!;
  const [, day, region, service] = url.searchParams.get("X-Amz-Credential")!.split("/");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretKey}`, day), region), service), "aws4_request");
  return createHmac("sha256", signingKey).update(stringToSign).digest("hex");
}

function awsOptions(overrides: Partial<S3StorageOptions> = {}): S3StorageOptions {
  return {
    endpoint: null,
    region: "eu-west-1",
    bucket: "examplebucket",
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET_KEY,
    pathStyle: true,
    publicUrl: null,
    urlTtlSeconds: 600,
    ...overrides,
  };
}

describe("request signing", () => {
  test("the independent SigV4 computation reproduces AWS's documented presigned-URL example", () => {
    // From the Amazon S3 API reference, "Authenticating Requests: Using Query Parameters": Bun cannot be given a fixed
    // signing date, so this is what proves the check below is itself right.
    const example = new URL(
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host",
    );
    expect(presignSignature(example, SECRET_KEY)).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  });

  for (const pathStyle of [true, false]) {
    test(`a presigned link carries the configured key, region, lifetime and a correct signature (${pathStyle ? "path" : "virtual-hosted"} style)`, async () => {
      const storage = createS3Storage(awsOptions({ pathStyle }));
      await storage.init!();
      const before = new Date();
      const url = new URL(storage.url("videos/vid_1/video-abc.mp4"));
      if (pathStyle) {
        expect(url.host).toBe("s3.eu-west-1.amazonaws.com");
        expect(url.pathname).toBe("/examplebucket/videos/vid_1/video-abc.mp4");
      } else {
        expect(url.host).toBe("examplebucket.s3.eu-west-1.amazonaws.com");
        expect(url.pathname).toBe("/videos/vid_1/video-abc.mp4");
      }
      const q = url.searchParams;
      expect(q.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
      const amzDate = q.get("X-Amz-Date")!;
      expect(amzDate).toMatch(/^\d{8}T\d{6}Z$/);
      // Signed now, not at some cached moment: within a minute of the call.
      const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"));
      expect(Math.abs(signedAt - before.getTime())).toBeLessThan(60_000);
      expect(q.get("X-Amz-Credential")).toBe(`${ACCESS_KEY}/${amzDate.slice(0, 8)}/eu-west-1/s3/aws4_request`);
      expect(q.get("X-Amz-Expires")).toBe("600");
      expect(q.get("X-Amz-SignedHeaders")).toBe("host");
      expect(q.get("X-Amz-Signature")).toBe(presignSignature(url, SECRET_KEY));
      // The secret never appears in a link.
      expect(url.toString()).not.toContain(SECRET_KEY);
      expect(url.toString()).not.toContain(encodeURIComponent(SECRET_KEY));
    });
  }

  test("a signature made with another secret does not match (the check is not vacuous)", async () => {
    const storage = createS3Storage(awsOptions({ secretAccessKey: "another-secret-entirely" }));
    await storage.init!();
    const url = new URL(storage.url("products/p1/a.png"));
    expect(url.searchParams.get("X-Amz-Signature")).not.toBe(presignSignature(url, SECRET_KEY));
    expect(url.searchParams.get("X-Amz-Signature")).toBe(presignSignature(url, "another-secret-entirely"));
  });

  test("a download name is signed into the link as response-content-disposition, made safe as the file route makes it", async () => {
    const storage = createS3Storage(awsOptions());
    await storage.init!();
    const url = new URL(storage.url("videos/vid_1/video-abc.mp4", { download: "Kahve fincanı_Clean-card" }));
    expect(url.searchParams.get("response-content-disposition")).toBe(
      `attachment; filename="Kahve fincani_Clean-card.mp4"; filename*=UTF-8''Kahve%20fincan%C4%B1_Clean-card.mp4`,
    );
    expect(url.searchParams.get("X-Amz-Signature")).toBe(presignSignature(url, SECRET_KEY));
    // The name is covered by the signature: another one put into the link no longer matches it.
    url.searchParams.set("response-content-disposition", `attachment; filename="setup.exe"`);
    expect(url.searchParams.get("X-Amz-Signature")).not.toBe(presignSignature(url, SECRET_KEY));
  });

  test("public links are plain URLs under the configured base, without any signature (nor a download name)", async () => {
    const storage = createS3Storage(awsOptions({ publicUrl: "https://cdn.example.com/media" }));
    await storage.init!();
    expect(storage.url("products/p1/a.png")).toBe("https://cdn.example.com/media/products/p1/a.png");
    // S3 overrides response headers for signed requests only: a public link cannot carry the name.
    expect(storage.url("products/p1/a.png", { download: "Mug" })).toBe("https://cdn.example.com/media/products/p1/a.png");
  });

  test("the client endpoint: AWS by region, a custom endpoint as given, the bucket in the host name for virtual-hosted style", () => {
    expect(clientEndpoint({ endpoint: null, region: "eu-central-1", bucket: "b", pathStyle: true })).toBe("https://s3.eu-central-1.amazonaws.com");
    expect(clientEndpoint({ endpoint: "http://minio:9000/", region: "us-east-1", bucket: "b", pathStyle: true })).toBe("http://minio:9000");
    expect(clientEndpoint({ endpoint: "https://s3.example.net", region: "x", bucket: "media", pathStyle: false })).toBe("https://media.s3.example.net");
    // Already carrying the bucket: left alone rather than doubled.
    expect(clientEndpoint({ endpoint: "https://media.s3.example.net", region: "x", bucket: "media", pathStyle: false })).toBe("https://media.s3.example.net");
  });
});

describe("init", () => {
  test("refuses to start without a bucket or keys, naming each missing setting", async () => {
    await expect(createS3Storage(awsOptions({ bucket: null })).init!()).rejects.toThrow("VITRIN_S3_BUCKET");
    const noKeys = createS3Storage(awsOptions({ accessKeyId: null, secretAccessKey: null })).init!();
    await expect(noKeys).rejects.toThrow("VITRIN_STORAGE=s3 needs VITRIN_S3_ACCESS_KEY_ID, VITRIN_S3_SECRET_ACCESS_KEY");
  });
});

describe("ready", () => {
  test("ok against a reachable bucket", async () => {
    const storage = createS3Storage(s3.options(await s3.newBucket()));
    await storage.init!();
    expect(await storage.ready!()).toEqual({ ok: true });
  });

  test("a missing bucket is reported with its name and S3's reason", async () => {
    const storage = createS3Storage(s3.options("no-such-bucket"));
    await storage.init!();
    const report = await storage.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain(`bucket "no-such-bucket" at ${s3.endpoint}`);
    expect(report.detail).toContain("NoSuchBucket");
  });

  test("an unknown access key is reported", async () => {
    const storage = createS3Storage(s3.options(await s3.newBucket(), { accessKeyId: "NOT-A-KEY" }));
    await storage.init!();
    const report = await storage.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain("InvalidAccessKeyId");
  });

  test("an endpoint nobody listens on is reported, naming the endpoint", async () => {
    // A port that was just free: bind one, then let it go.
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    const storage = createS3Storage(s3.options("vitrin", { endpoint: `http://127.0.0.1:${port}` }));
    await storage.init!();
    const report = await storage.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain(`at http://127.0.0.1:${port}`);
  });

  test("an endpoint that never answers is reported after the time limit instead of hanging /readyz", async () => {
    const silent = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
    try {
      const storage = createS3Storage(s3.options("vitrin", { endpoint: `http://127.0.0.1:${silent.port}`, readyTimeoutMs: 200 }));
      await storage.init!();
      const started = Date.now();
      const report = await storage.ready!();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(report).toEqual({ ok: false, detail: `bucket "vitrin" at http://127.0.0.1:${silent.port}: no answer within 200 ms` });
    } finally {
      silent.stop(true);
    }
  });
});

describe("presigned links on a real server", () => {
  test("a link works within its lifetime and is refused after it", async () => {
    const storage = createS3Storage(s3.options(await s3.newBucket(), { urlTtlSeconds: 1 }));
    await storage.init!();
    await storage.put("products/p1/a.png", new Uint8Array([1, 2, 3]), "image/png");
    const url = storage.url("products/p1/a.png");
    expect((await fetch(url)).status).toBe(200);
    await Bun.sleep(2100);
    expect((await fetch(url)).status).toBe(403);
    // A fresh read signs a fresh link.
    expect((await fetch(storage.url("products/p1/a.png"))).status).toBe(200);
  });
});

describe("settings", () => {
  const s3Env = { VITRIN_STORAGE: "s3", VITRIN_S3_BUCKET: "media", VITRIN_S3_ACCESS_KEY_ID: "k", VITRIN_S3_SECRET_ACCESS_KEY: "s" };
  /** The plugin's declared settings, read as at start. */
  const read = (env: Record<string, string>) => readPluginSettings(s3Settings, loadConfig(env));

  test("defaults: AWS endpoint, us-east-1, path style, presigned links valid for a day", () => {
    expect(loadConfig(s3Env).storage).toBe("s3");
    const c = read(s3Env);
    expect(c.endpoint).toBeNull();
    expect(c.region).toBe("us-east-1");
    expect(c.bucket).toBe("media");
    expect(c.pathStyle).toBe(true);
    expect(c.urls).toBe("presigned");
    expect(c.urlTtlSeconds).toBe(86400);
    expect(read({}).bucket).toBeNull();
  });

  test("setting VITRIN_CDN_URL makes links public under it, unless VITRIN_S3_URLS says presigned", () => {
    expect(read({ ...s3Env, VITRIN_CDN_URL: "https://media.example.com/" }).urls).toBe("public");
    expect(read({ ...s3Env, VITRIN_CDN_URL: "https://media.example.com", VITRIN_S3_URLS: "presigned" }).urls).toBe("presigned");
  });

  test.each([
    ["VITRIN_S3_URLS", "public"], // public links without VITRIN_CDN_URL would point at vitrin's own /files, which S3 files are not behind
    ["VITRIN_S3_URLS", "signed"],
    ["VITRIN_S3_URL_TTL_SECONDS", "604801"],
    ["VITRIN_S3_URL_TTL_SECONDS", "0"],
    ["VITRIN_S3_ENDPOINT", "minio:9000"],
    ["VITRIN_S3_BUCKET", "media/videos"],
    ["VITRIN_S3_REGION", "EU West"],
    ["VITRIN_S3_PATH_STYLE", "sometimes"],
  ])("%s=%s is refused with a message naming it", (name, value) => {
    expect(() => read({ ...s3Env, [name]: value })).toThrow(ConfigError);
    expect(() => read({ ...s3Env, [name]: value })).toThrow(name);
  });
});
