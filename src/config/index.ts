// Reads and validates every VITRIN_* setting once at start; the README's configuration table is generated from this list.
import { existsSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, resolve } from "node:path";
import { defaultNativeDir } from "./paths";

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  cdnUrl: string;
  adminToken: string | null;
  databaseUrl: string;
  databasePool: number;
  databaseBusyTimeoutMs: number;
  idempotencyLeaseMs: number;
  allowPrivateNetworks: boolean;
  storage: string;
  backgroundRemoval: string;
  renderer: string;
  payment: string;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  authFailuresPerMinute: number;
  trustedProxies: string[];
  fetchTimeoutMs: number;
  maxBodyBytes: number;
  shutdownTimeoutMs: number;
  webhookTimeoutMs: number;
  pollMs: number;
  jobLeaseMs: number | null;
  modelDir: string;
  dekupeThreads: number;
  dekupeMemoryArena: boolean;
  modelIdleMs: number;
  idleTrimMs: number;
  currencies: string[];
  creditRates: Record<string, number>;
  topUpTtlMs: number;
  topUpMax: number;
  lowBalanceThreshold: number;
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  stripeApiUrl: string | null;
  s3Endpoint: string | null;
  s3Region: string;
  s3Bucket: string | null;
  s3AccessKeyId: string | null;
  s3SecretAccessKey: string | null;
  s3PathStyle: boolean;
  s3Urls: "presigned" | "public";
  s3UrlTtlSeconds: number;
  renderTimeoutMs: number;
  dekupeWaitMs: number;
  previewCacheBytes: number;
  ffmpegPath: string | null;
  ffprobePath: string | null;
  renderThreads: number;
  templateDirs: string[];
  pluginDirs: string[];
  nativeDir: string;
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

type Setting = {
  env: string;
  key: keyof Config;
  doc: string;
  default: string;
  parse: (raw: string, env: Env, partial: Partial<Config>) => Config[keyof Config];
};

function integer(min: number, max: number) {
  return (raw: string) => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`must be a whole number between ${min} and ${max}`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`must be between ${min} and ${max}`);
    return n;
  };
}

function boolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new Error("must be true or false");
}

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    const v = raw.trim() as T;
    if (!values.includes(v)) throw new Error(`must be one of ${values.join(", ")}`);
    return v;
  };
}

function pluginName(raw: string): string {
  const v = raw.trim();
  if (!/^[a-z0-9][a-z0-9-]*$/.test(v)) throw new Error("must be a plugin name (lowercase letters, digits and dashes)");
  return v;
}

/** An IPv4/IPv6 address, optionally with a /prefix length that fits its family. */
function proxyEntry(entry: string): boolean {
  const [address, bits, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

function pathList(raw: string): string[] {
  return raw.split(":").map((p) => p.trim()).filter(Boolean).map((p) => resolve(p));
}

function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error("must be an absolute http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("must be an absolute http(s) URL");
  return u.toString().replace(/\/+$/, "");
}

const settings: Setting[] = [
  { env: "VITRIN_PORT", key: "port", default: "8080", doc: "TCP port the HTTP server listens on (0 picks a free one).", parse: integer(0, 65535) },
  { env: "VITRIN_HOST", key: "host", default: "0.0.0.0", doc: "Address the HTTP server binds to.", parse: (r) => r.trim() || "0.0.0.0" },
  {
    env: "VITRIN_DATA_DIR",
    key: "dataDir",
    default: "./data",
    doc: "Folder for the SQLite database, stored files and caches. Created if missing.",
    parse: (r) => resolve(r.trim() || "./data"),
  },
  {
    env: "VITRIN_PUBLIC_URL",
    key: "publicUrl",
    default: "http://localhost:$VITRIN_PORT",
    doc: "Public base URL of this service, used to build links (`{base_url}` is this + `/v1`).",
    parse: httpUrl,
  },
  {
    env: "VITRIN_CDN_URL",
    key: "cdnUrl",
    default: "$VITRIN_PUBLIC_URL/files",
    doc: "Base URL under which stored images and videos are served (`{cdn_url}`). With `VITRIN_STORAGE=s3`, setting it makes links plain public ones under it instead of presigned ones (see VITRIN_S3_URLS).",
    parse: httpUrl,
  },
  {
    env: "VITRIN_ADMIN_TOKEN",
    key: "adminToken",
    default: "(unset: admin API off)",
    doc: "Bearer token for the `/v1/admin` API. At least 16 characters. Unset turns the admin API off.",
    parse: (r) => {
      const v = r.trim();
      if (v === "") return null;
      if (v.length < 16) throw new Error("must be at least 16 characters");
      return v;
    },
  },
  {
    env: "VITRIN_DATABASE_URL",
    key: "databaseUrl",
    default: "sqlite:$VITRIN_DATA_DIR/vitrin.db",
    doc: "Database: `sqlite:<path>` (default, embedded) or `postgres://…` for scale-out.",
    parse: (r) => {
      const v = r.trim();
      if (v.startsWith("sqlite:") || v.startsWith("postgres://") || v.startsWith("postgresql://")) return v;
      throw new Error("must start with sqlite: or postgres://");
    },
  },
  {
    env: "VITRIN_DATABASE_POOL",
    key: "databasePool",
    default: "10",
    doc: "PostgreSQL only: connections each vitrin process keeps open at most. Transactions are short, so a few serve many requests; mind the server's max_connections across all instances.",
    parse: integer(1, 1000),
  },
  {
    env: "VITRIN_DATABASE_BUSY_TIMEOUT_MS",
    key: "databaseBusyTimeoutMs",
    default: "1000",
    doc: "SQLite only: how long a write waits (without blocking other requests) for the database's write lock while another process holds it, such as a CLI command; past it the request gets `503 Unavailable` with `Retry-After`.",
    parse: integer(0, 60_000),
  },
  {
    env: "VITRIN_IDEMPOTENCY_LEASE_MS",
    key: "idempotencyLeaseMs",
    default: "30000",
    doc: "How long a request holds its `Idempotency-Key` while it runs: if its instance dies mid-request, the key is free again after this (before, a retry gets a 409). Keep it above the slowest request (image fetches take up to VITRIN_FETCH_TIMEOUT_MS).",
    parse: integer(1000, 3_600_000),
  },
  {
    env: "VITRIN_ALLOW_PRIVATE_NETWORKS",
    key: "allowPrivateNetworks",
    default: "false",
    doc: "Let image fetches and webhooks reach loopback and private addresses (local setups and tests only).",
    parse: boolean,
  },
  {
    env: "VITRIN_STORAGE",
    key: "storage",
    default: "local",
    doc: "Storage plugin: `local` (files under the data dir, served by vitrin) or `s3` (an S3-compatible bucket, see the VITRIN_S3_* settings).",
    parse: pluginName,
  },
  {
    env: "VITRIN_BACKGROUND_REMOVAL",
    key: "backgroundRemoval",
    default: "isnet",
    doc: "Background-removal plugin: `isnet` (the bundled ISNet model, offline) or `none` (pass-through).",
    parse: pluginName,
  },
  { env: "VITRIN_RENDERER", key: "renderer", default: "ffmpeg", doc: "Renderer plugin.", parse: pluginName },
  { env: "VITRIN_PAYMENT", key: "payment", default: "manual", doc: "Payment plugin.", parse: pluginName },
  {
    env: "VITRIN_LOG_LEVEL",
    key: "logLevel",
    default: "info",
    doc: "Least severe log level written as JSON lines to stdout: debug, info, warn, error, silent.",
    parse: oneOf("debug", "info", "warn", "error", "silent"),
  },
  {
    env: "VITRIN_RATE_LIMIT",
    key: "rateLimitPerMinute",
    default: "600",
    doc: "Requests per minute per token (sustained). 0 turns rate limiting off.",
    parse: integer(0, 10_000_000),
  },
  {
    env: "VITRIN_RATE_LIMIT_BURST",
    key: "rateLimitBurst",
    default: "120",
    doc: "Requests a token may make at once above the sustained rate.",
    parse: integer(1, 10_000_000),
  },
  {
    env: "VITRIN_AUTH_FAILURES_PER_MINUTE",
    key: "authFailuresPerMinute",
    default: "20",
    doc: "Wrong bearer tokens one client address may send per minute; past it, authenticated routes answer that address `429` with `Retry-After` until its minute ends (valid tokens included, so guessing learns nothing). Counted per instance; an IPv6 client counts by its /64. 0 turns the throttle off.",
    parse: integer(0, 1_000_000),
  },
  {
    env: "VITRIN_TRUSTED_PROXIES",
    key: "trustedProxies",
    default: "(none: X-Forwarded-For is ignored)",
    doc: "Reverse proxies (addresses or CIDR blocks, comma-separated, e.g. `127.0.0.1,10.0.0.0/8`) whose `X-Forwarded-For` names the client. Empty trusts none: the socket's peer is the client, and the header is ignored.",
    parse: (r) => {
      const list = r.split(",").map((e) => e.trim()).filter(Boolean);
      const bad = list.find((e) => !proxyEntry(e));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not an IP address or CIDR block (like 10.0.0.0/8)`);
      return list;
    },
  },
  {
    env: "VITRIN_FETCH_TIMEOUT_MS",
    key: "fetchTimeoutMs",
    default: "10000",
    doc: "Time limit for fetching a product image, in milliseconds.",
    parse: integer(100, 600_000),
  },
  {
    env: "VITRIN_MAX_BODY_BYTES",
    key: "maxBodyBytes",
    default: "8388608",
    doc: "Largest accepted JSON request body (room for a 5 MB image as a `data:` URL).",
    parse: integer(1024, 64 * 1024 * 1024),
  },
  {
    env: "VITRIN_SHUTDOWN_TIMEOUT_MS",
    key: "shutdownTimeoutMs",
    default: "10000",
    doc: "How long a graceful shutdown waits for in-flight work before exiting.",
    parse: integer(0, 600_000),
  },
  {
    env: "VITRIN_WEBHOOK_TIMEOUT_MS",
    key: "webhookTimeoutMs",
    default: "15000",
    doc: "Time limit for one webhook delivery attempt, in milliseconds.",
    parse: integer(100, 600_000),
  },
  {
    env: "VITRIN_POLL_MS",
    key: "pollMs",
    default: "1000",
    doc: "How often workers look for jobs enqueued by other processes (in-process work starts at once).",
    parse: integer(10, 600_000),
  },
  {
    env: "VITRIN_JOB_LEASE_MS",
    key: "jobLeaseMs",
    default: "(per job kind: 30000; 60000 for renders and webhooks)",
    doc: "How long a running job stays leased to its instance without renewal (renewed every third of it). When an instance dies, another takes its jobs over after this long.",
    parse: (r) => (r.trim() === "" ? null : integer(1000, 3_600_000)(r)),
  },
  {
    env: "VITRIN_MODEL_DIR",
    key: "modelDir",
    default: "$VITRIN_DATA_DIR/models/isnet",
    doc: "Background-removal model folder in transformers.js layout (config.json, preprocessor_config.json, onnx/model.onnx). The bundled ISNet model is assembled here; point it at another export (e.g. RMBG-1.4) to swap models.",
    parse: (r) => resolve(r.trim()),
  },
  {
    env: "VITRIN_DEKUPE_THREADS",
    key: "dekupeThreads",
    default: "(number of CPU cores)",
    doc: "Threads one background-removal inference may use.",
    parse: integer(1, 256),
  },
  {
    env: "VITRIN_DEKUPE_MEMORY_ARENA",
    key: "dekupeMemoryArena",
    default: "false",
    doc: "Keep ONNX Runtime's memory arena between background-removal runs: ~15–20 % faster inference, ~0.2 GB more peak memory while the model is loaded. true suits hosts with memory to spare.",
    parse: boolean,
  },
  {
    env: "VITRIN_MODEL_IDLE_MS",
    key: "modelIdleMs",
    default: "30000",
    doc: "Unload the background-removal model after this long without work, to give its memory back (~0.3 GB; loading it again costs the next cut-out ~0.7 s).",
    parse: integer(0, 86_400_000),
  },
  {
    env: "VITRIN_IDLE_TRIM_MS",
    key: "idleTrimMs",
    default: "10000",
    doc: "After this long without a cut-out or a render, give freed memory back to the system (a full garbage collection, then glibc's `malloc_trim`), so an idle instance's RSS comes down. 0 turns it off.",
    parse: integer(0, 86_400_000),
  },
  {
    env: "VITRIN_CURRENCIES",
    key: "currencies",
    default: "usd,eur,try,gbp",
    doc: "Currencies a top-up may use (lowercase ISO 4217 codes, comma-separated).",
    parse: (r) => {
      const list = r.split(",").map((c) => c.trim()).filter(Boolean);
      if (list.length === 0 || !list.every((c) => /^[a-z]{3}$/.test(c))) throw new Error("must be lowercase three-letter currency codes, comma-separated");
      return list;
    },
  },
  {
    env: "VITRIN_CREDIT_RATES",
    key: "creditRates",
    default: "usd=10,eur=11,try=0.3,gbp=12",
    doc: "Credits bought per major currency unit (e.g. `usd=10`: 10.00 USD buys 100 credits); one rate per currency in VITRIN_CURRENCIES.",
    parse: (r, _env, partial) => {
      const rates: Record<string, number> = {};
      for (const part of r.split(",").map((p) => p.trim()).filter(Boolean)) {
        const m = /^([a-z]{3})=(\d+(?:\.\d+)?)$/.exec(part);
        if (!m || Number(m[2]) <= 0) throw new Error(`"${part}" is not currency=rate with a positive rate`);
        rates[m[1]] = Number(m[2]);
      }
      const missing = (partial.currencies ?? []).filter((c) => !(c in rates));
      if (missing.length) throw new Error(`no rate for ${missing.join(", ")}`);
      return rates;
    },
  },
  {
    env: "VITRIN_TOP_UP_TTL_MS",
    key: "topUpTtlMs",
    default: "86400000",
    doc: "How long a started top-up waits for its payment before it expires.",
    parse: integer(60_000, 30 * 86_400_000),
  },
  {
    env: "VITRIN_TOP_UP_MAX",
    key: "topUpMax",
    default: "99999999",
    doc: "Largest top-up `amount` in minor units (default 999,999.99 in the major unit, Stripe's own ceiling for usd, eur, gbp and try); larger is a 422.",
    // At most 10^12: amount × rate stays a safe integer for any sensible rate (startTopUp checks the credits too).
    parse: integer(1000, 1_000_000_000_000),
  },
  {
    env: "VITRIN_LOW_BALANCE_THRESHOLD",
    key: "lowBalanceThreshold",
    default: "10",
    doc: "A `balance.low` webhook goes to the account's webhook URL when its credits fall below this. 0 turns it off.",
    parse: integer(0, 1_000_000_000),
  },
  {
    env: "VITRIN_STRIPE_SECRET_KEY",
    key: "stripeSecretKey",
    default: "(unset)",
    doc: "Stripe secret key (`sk_…`); required when VITRIN_PAYMENT=stripe.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_STRIPE_WEBHOOK_SECRET",
    key: "stripeWebhookSecret",
    default: "(unset)",
    doc: "Signing secret (`whsec_…`) of the Stripe webhook endpoint `{public_url}/v1/payments/stripe/webhook`; required with Stripe.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_STRIPE_API_URL",
    key: "stripeApiUrl",
    default: "(Stripe's own)",
    doc: "Another base URL for the Stripe API (a proxy, or a local stand-in in tests).",
    parse: (r) => (r.trim() ? httpUrl(r) : null),
  },
  {
    env: "VITRIN_S3_ENDPOINT",
    key: "s3Endpoint",
    default: "(AWS S3 in VITRIN_S3_REGION)",
    doc: "With `VITRIN_STORAGE=s3`: base URL of the S3 API, without the bucket (e.g. `http://minio:9000`, `https://<account>.r2.cloudflarestorage.com`).",
    parse: (r) => (r.trim() ? httpUrl(r) : null),
  },
  {
    env: "VITRIN_S3_REGION",
    key: "s3Region",
    default: "us-east-1",
    doc: "Region requests to the bucket are signed for (`auto` for Cloudflare R2; any value for most self-hosted stores).",
    parse: (r) => {
      const v = r.trim();
      if (!/^[a-z0-9][a-z0-9-]*$/.test(v)) throw new Error("must be a region name such as us-east-1");
      return v;
    },
  },
  {
    env: "VITRIN_S3_BUCKET",
    key: "s3Bucket",
    default: "(unset)",
    doc: "Bucket that holds stored images and videos; required with `VITRIN_STORAGE=s3`. Create it beforehand.",
    parse: (r) => {
      const v = r.trim();
      if (v !== "" && !/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/.test(v)) throw new Error("must be a bucket name (letters, digits, dots, dashes)");
      return v || null;
    },
  },
  {
    env: "VITRIN_S3_ACCESS_KEY_ID",
    key: "s3AccessKeyId",
    default: "(unset)",
    doc: "Access key ID for the bucket; required with `VITRIN_STORAGE=s3`. The key needs to list the bucket and to get, put and delete its objects.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_S3_SECRET_ACCESS_KEY",
    key: "s3SecretAccessKey",
    default: "(unset)",
    doc: "Secret access key of VITRIN_S3_ACCESS_KEY_ID; required with `VITRIN_STORAGE=s3`.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_S3_PATH_STYLE",
    key: "s3PathStyle",
    default: "true",
    doc: "Address the bucket in the path (`<endpoint>/<bucket>/<key>`, what MinIO, Garage and most self-hosted stores expect). `false` puts it in the host name (`<bucket>.<endpoint host>`), as some providers require.",
    parse: boolean,
  },
  {
    env: "VITRIN_S3_URLS",
    key: "s3Urls",
    default: "(public if VITRIN_CDN_URL is set, else presigned)",
    doc: "How S3 storage links to files in API responses and webhooks: `presigned` (signed links that expire after VITRIN_S3_URL_TTL_SECONDS; the bucket stays private) or `public` (plain links under VITRIN_CDN_URL, which must then be the address of a publicly readable bucket or of a CDN in front of it).",
    parse: (r, env) => {
      const v = r.trim();
      const cdnSet = (env.VITRIN_CDN_URL ?? "").trim() !== "";
      if (v === "") return cdnSet ? "public" : "presigned";
      if (v !== "presigned" && v !== "public") throw new Error("must be presigned or public");
      if (v === "public" && !cdnSet) throw new Error("public links need VITRIN_CDN_URL set to the bucket's (or its CDN's) public address");
      return v;
    },
  },
  {
    env: "VITRIN_S3_URL_TTL_SECONDS",
    key: "s3UrlTtlSeconds",
    default: "86400",
    doc: "How long a presigned link stays valid (at most 604800, S3's limit). Every API read signs fresh links, so fetch the product or video again for a new one.",
    parse: integer(1, 604_800),
  },
  {
    env: "VITRIN_RENDER_TIMEOUT_MS",
    key: "renderTimeoutMs",
    default: "600000",
    doc: "Wall-clock limit for one video render; past it ffmpeg is killed and the video fails with a refund.",
    parse: integer(100, 86_400_000),
  },
  {
    env: "VITRIN_DEKUPE_WAIT_MS",
    key: "dekupeWaitMs",
    default: "1800000",
    doc: "How long a video waits for its product's cut-out (counted from the video's request); past it the video fails with a refund instead of waiting on a cut-out that will not come.",
    parse: integer(1000, 86_400_000),
  },
  {
    env: "VITRIN_PREVIEW_CACHE_BYTES",
    key: "previewCacheBytes",
    default: "33554432",
    doc: "Memory kept for template previews (PNG bytes, least recently used dropped first); 32 MiB holds the built-in templates in every language. 0 keeps none.",
    parse: integer(0, 4 * 1024 * 1024 * 1024),
  },
  {
    env: "VITRIN_FFMPEG_PATH",
    key: "ffmpegPath",
    default: "(ffmpeg on PATH)",
    doc: "The ffmpeg executable the renderer runs.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_FFPROBE_PATH",
    key: "ffprobePath",
    default: "(ffprobe beside VITRIN_FFMPEG_PATH, else on PATH)",
    doc: "The ffprobe executable that checks every rendered video.",
    parse: (r) => r.trim() || null,
  },
  {
    env: "VITRIN_RENDER_THREADS",
    key: "renderThreads",
    default: "0",
    doc: "Threads one render's H.264 encoder may use; 0 lets ffmpeg choose.",
    parse: integer(0, 256),
  },
  {
    env: "VITRIN_TEMPLATE_DIRS",
    key: "templateDirs",
    default: "(templates/ next to the executable, if any)",
    doc: "Extra folders of template scripts (`:`-separated), loaded at start beside the built-in templates.",
    parse: pathList,
  },
  {
    env: "VITRIN_PLUGIN_DIRS",
    key: "pluginDirs",
    default: "(plugins/ next to the executable, if any)",
    doc: "Folders of plugins (`:`-separated) imported at start; each plugin is a subfolder with an `index.ts`/`index.js`, or a single module file.",
    parse: pathList,
  },
  {
    env: "VITRIN_NATIVE_DIR",
    key: "nativeDir",
    default: "$XDG_CACHE_HOME/vitrin/native (~/.cache/vitrin/native)",
    doc: "Where the compiled binary unpacks its native libraries (sharp's libvips, ONNX Runtime) once per build. Must be writable and allow executing (not a noexec mount).",
    parse: (r) => resolve(r.trim()),
  },
];

/** Builds the configuration from an environment (process.env by default); throws ConfigError naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const out: Partial<Config> = {};
  for (const s of settings) {
    let raw = env[s.env];
    if (raw === undefined) raw = defaultFor(s, out, env);
    try {
      (out as Record<string, unknown>)[s.key] = s.parse(raw, env, out);
    } catch (e) {
      throw new ConfigError(`${s.env}=${JSON.stringify(env[s.env] ?? raw)}: ${(e as Error).message}`);
    }
  }
  // Plugins loaded from folders read their own settings, named VITRIN_PLUGIN_<NAME>_<SETTING>.
  const unknown = Object.keys(env).filter(
    (k) => k.startsWith("VITRIN_") && !settings.some((s) => s.env === k) && !/^VITRIN_PLUGIN_[A-Z0-9]+_[A-Z0-9_]+$/.test(k),
  );
  if (unknown.length > 0) throw new ConfigError(`unknown setting ${unknown.join(", ")}; see the README's configuration table`);
  return out as Config;
}

function defaultFor(s: Setting, partial: Partial<Config>, env: Env): string {
  switch (s.key) {
    case "publicUrl": {
      const host = partial.host && partial.host !== "0.0.0.0" && partial.host !== "::" ? partial.host : "localhost";
      return `http://${host.includes(":") ? `[${host}]` : host}:${partial.port}`;
    }
    case "cdnUrl":
      return `${partial.publicUrl}/files`;
    case "databaseUrl":
      return `sqlite:${resolve(partial.dataDir!, "vitrin.db")}`;
    case "adminToken":
      return "";
    case "modelDir":
      return resolve(partial.dataDir!, "models", "isnet");
    case "stripeSecretKey":
    case "stripeWebhookSecret":
    case "stripeApiUrl":
      return "";
    case "s3Endpoint":
    case "s3Bucket":
    case "s3AccessKeyId":
    case "s3SecretAccessKey":
    case "s3Urls":
      return "";
    case "jobLeaseMs":
    case "trustedProxies":
    case "ffmpegPath":
    case "ffprobePath":
      return "";
    case "templateDirs":
      return besideExecutable("templates");
    case "pluginDirs":
      return besideExecutable("plugins");
    case "nativeDir":
      return defaultNativeDir(env);
    case "dekupeThreads":
      return String(Math.max(1, navigator.hardwareConcurrency || 1));
    default:
      return s.default;
  }
}

/** `name` beside the compiled executable when that folder exists; from source the repository's own folders serve. */
function besideExecutable(name: string): string {
  if (!isCompiled()) return "";
  const dir = resolve(dirname(process.execPath), name);
  return existsSync(dir) ? dir : "";
}

/** True inside a `bun build --compile` executable (its modules live under the embedded /$bunfs/ root). */
export function isCompiled(): boolean {
  return import.meta.url.includes("$bunfs") || import.meta.path.includes("$bunfs") || import.meta.path.startsWith("B:/~BUN");
}

/** The configuration table as Markdown, for the README (a test keeps the two in step). */
export function configTable(): string {
  const rows = settings.map((s) => `| \`${s.env}\` | \`${s.default}\` | ${s.doc} |`);
  return ["| Variable | Default | Meaning |", "|---|---|---|", ...rows].join("\n");
}

export const settingNames = settings.map((s) => s.env);
