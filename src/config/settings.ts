// The core settings: every VITRIN_* variable the core reads, with its default and meaning (the configuration table is
// made from this list and every plugin's declared settings). Plugins declare their own settings in their folders.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { boolean, httpUrl, integer, oneOf, pathList, pluginName, proxyEntry, type Setting } from "./parse";
import { defaultNativeDir } from "./paths";

/** The core's settings, read once at start. */
export type CoreConfig = {
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
  webhookAllowHosts: string[];
  pollMs: number;
  jobLeaseMs: number | null;
  idleTrimMs: number;
  currencies: string[];
  creditRates: Record<string, number>;
  topUpTtlMs: number;
  topUpMax: number;
  lowBalanceThreshold: number;
  renderTimeoutMs: number;
  dekupeWaitMs: number;
  videoRetentionDays: number;
  previewCacheBytes: number;
  previewsPerMinute: number;
  templateDirs: string[];
  musicDirs: string[];
  pluginDirs: string[];
  nativeDir: string;
  skipSystemDeps: boolean;
};

/** A core setting: read in list order, so a default may follow the settings above it. */
export type CoreSetting = Setting<CoreConfig[keyof CoreConfig], Partial<CoreConfig>> & { key: keyof CoreConfig };

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

export const coreSettings: CoreSetting[] = [

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
    unset: ({ config }) => {
      const host = config.host && config.host !== "0.0.0.0" && config.host !== "::" ? config.host : "localhost";
      return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
    },
    default: "http://$VITRIN_HOST:$VITRIN_PORT (localhost when the host is 0.0.0.0 or ::)",
    doc: "Public base URL of this service, used to build links (`{base_url}` is this + `/v1`). Set it when VITRIN_PORT is 0: links are built from the configured port, not the one picked.",
    parse: httpUrl,
  },
  {
    env: "VITRIN_CDN_URL",
    key: "cdnUrl",
    unset: ({ config }) => `${config.publicUrl}/files`,
    default: "$VITRIN_PUBLIC_URL/files",
    doc: "Base URL under which stored images and videos are served (`{cdn_url}`). With `VITRIN_STORAGE=s3`, setting it makes links plain public ones under it instead of presigned ones (see VITRIN_S3_URLS).",
    parse: httpUrl,
  },
  {
    env: "VITRIN_ADMIN_TOKEN",
    key: "adminToken",
    unset: "",
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
    unset: ({ config }) => `sqlite:${resolve(config.dataDir!, "vitrin.db")}`,
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
    unset: "",
    default: "(none: X-Forwarded-For and -Proto are ignored)",
    doc: "Reverse proxies (addresses or CIDR blocks, comma-separated, e.g. `127.0.0.1,10.0.0.0/8`) whose `X-Forwarded-For` names the client and whose `X-Forwarded-Proto: https` makes the Studio's session cookie `Secure`. Empty trusts none: the socket's peer is the client, and both headers are ignored.",
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
    env: "VITRIN_WEBHOOK_ALLOW_HOSTS",
    key: "webhookAllowHosts",
    unset: "",
    default: "(none: receivers must be public)",
    doc: "Host names (comma-separated, e.g. `hooks.internal,crm.lan`) whose webhook URLs may point to private or loopback addresses, without opening every private network (`VITRIN_ALLOW_PRIVATE_NETWORKS`).",
    parse: (r) => {
      const list = r.split(",").map((h) => h.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean);
      const bad = list.find((h) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not a host name (no scheme, port or path)`);
      return list;
    },
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
    unset: "",
    default: "(per job kind: 30000; 60000 for renders and webhooks)",
    doc: "How long a running job stays leased to its instance without renewal (renewed every third of it). When an instance dies, another takes its jobs over after this long.",
    parse: (r) => (r.trim() === "" ? null : integer(1000, 3_600_000)(r)),
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
    parse: (r, { config }) => {
      const rates: Record<string, number> = {};
      for (const part of r.split(",").map((p) => p.trim()).filter(Boolean)) {
        const m = /^([a-z]{3})=(\d+(?:\.\d+)?)$/.exec(part);
        if (!m || Number(m[2]) <= 0) throw new Error(`"${part}" is not currency=rate with a positive rate`);
        rates[m[1]] = Number(m[2]);
      }
      const missing = (config.currencies ?? []).filter((c) => !(c in rates));
      if (missing.length) throw new Error(`no rate for ${missing.join(", ")}`);
      return rates;
    },
  },
  {
    env: "VITRIN_TOP_UP_TTL_MS",
    key: "topUpTtlMs",
    default: "86400000",
    doc: "How long a started top-up waits for its payment before it expires (one minute to 30 days).",
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
    doc: "A `balance.low` webhook goes to the account's webhook URL and subscribed endpoints when a video's charge or an operator's correction through the admin API takes its credits below this. 0 turns it off.",
    parse: integer(0, 1_000_000_000),
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
    env: "VITRIN_VIDEO_RETENTION_DAYS",
    key: "videoRetentionDays",
    default: "0",
    doc: "Days a finished video's files (video and thumbnail) are kept; an hourly job deletes older ones, leaving the record with `files_deleted_at` set and its URLs null. 0 keeps them for ever.",
    parse: integer(0, 36_500),
  },
  {
    env: "VITRIN_PREVIEW_CACHE_BYTES",
    key: "previewCacheBytes",
    default: "33554432",
    doc: "Memory kept for template previews (PNG bytes, least recently used dropped first); 32 MiB holds the built-in templates in every language. 0 keeps none.",
    parse: integer(0, 4 * 1024 * 1024 * 1024),
  },
  {
    env: "VITRIN_PREVIEWS_PER_MINUTE",
    key: "previewsPerMinute",
    default: "30",
    doc: "`POST /v1/videos/preview` requests an account may make per minute (all at once, then one every 60/N s); past it, `429` with `Retry-After`. Each preview lays out and draws a frame, so it costs far more than other requests. 0 turns this limit off.",
    parse: integer(0, 100_000),
  },
  {
    env: "VITRIN_TEMPLATE_DIRS",
    key: "templateDirs",
    unset: () => besideExecutable("templates"),
    default: "(templates/ next to the executable, if any)",
    doc: "Extra folders of template scripts (`:`-separated), loaded at start beside the built-in templates.",
    parse: pathList,
  },
  {
    env: "VITRIN_MUSIC_DIRS",
    key: "musicDirs",
    unset: () => besideExecutable("music"),
    default: "(music/ next to the executable, if any)",
    doc: "Extra folders of music tracks (`:`-separated), each with a `tracks.json` like the shipped music/tracks.json, listed by GET /v1/music beside the shipped tracks.",
    parse: pathList,
  },
  {
    env: "VITRIN_PLUGIN_DIRS",
    key: "pluginDirs",
    unset: () => besideExecutable("plugins"),
    default: "(plugins/ next to the executable, if any)",
    doc: "Folders of plugins (`:`-separated) imported at start; each plugin is a subfolder with an `index.ts`/`index.js`, or a single module file.",
    parse: pathList,
  },
  {
    env: "VITRIN_NATIVE_DIR",
    key: "nativeDir",
    unset: ({ env }) => defaultNativeDir(env),
    default: "$XDG_CACHE_HOME/vitrin/native (~/.cache/vitrin/native)",
    doc: "Where the compiled binary unpacks its native libraries (sharp's libvips, ONNX Runtime) once per build. Must be writable and allow executing (not a noexec mount).",
    parse: (r) => resolve(r.trim()),
  },
  {
    env: "VITRIN_SKIP_SYSTEM_DEPS",
    key: "skipSystemDeps",
    default: "false",
    doc: "Read by the run command (`npm start`, scripts/ensure-ffmpeg.sh), not the service: `1` or `true` never installs system packages (ffmpeg); a missing one stops the run command with the exact command to install it.",
    parse: boolean,
  },
];
