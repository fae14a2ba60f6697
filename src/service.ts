// The composition root: builds one vitrin instance from a config in named steps (open the database, load the
// templates and plugins, build the domain, build the HTTP app) and knows how to serve and shut down gracefully.
import type { Server } from "bun";
import type { Config } from "./config";
import { createLogger, errors, systemClock, type Clock, type Logger } from "./kernel";
import type { Db } from "./db";
import { createAccounts, createStudioSessions } from "./accounts";
import { createDekupe, createProducts, DEKUPE_JOB, type Dekupe, type DekupeJobPayload } from "./products";
import {
  AuthGate,
  AuthThrottle,
  adminRoutes,
  adminTokenRoutes,
  balanceRoutes,
  brandRoutes,
  createHttpApp,
  createIdempotency,
  createMetrics,
  idempotentWrites,
  IDEMPOTENCY_PURGE_JOB,
  createRateLimiter,
  jobRoutes,
  loginLinkRoutes,
  musicRoutes,
  paymentRoutes,
  productRoutes,
  recordIdempotentError,
  registerIdempotencyPurge,
  studioSessionRoutes,
  tokenRoutes,
  trustedProxyList,
  videoRoutes,
  webhookRoutes,
  webhookEndpointRoutes,
  type GuardDeps,
  type Idempotency,
  type Metrics,
  requestMetas,
} from "./http";
import { JobEngine } from "./jobs";
import { createIdleReclaim, type IdleReclaim } from "./native";
import { createWebhooks, WEBHOOK_JOB } from "./webhooks";
import { checkOutboundUrl } from "./net";
import { createBilling, TOP_UP_EXPIRE_JOB } from "./billing";
import { createVideos, RENDER_JOB, RETENTION_JOB } from "./videos";
import { createBrand } from "./brand";
import { createMusic } from "./music";
import type { PluginRegistry, Plugins } from "./plugins";
import { openFoundation } from "./foundation";
import type { TemplateRegistry } from "./templates";
import { createStudioAssets, defaultStudioFiles, studioNotFound, studioRoutes, type StudioFile } from "./studio";

export type ServiceOptions = {
  clock?: Clock;
  logger?: Logger;
  /** Where plugins read their own settings (process.env by default). */
  env?: Record<string, string | undefined>;
  registry?: PluginRegistry;
  /** DNS override for outbound fetches (tests make fake public names resolve where they need). */
  resolve?: (host: string) => Promise<string[]>;
  /** Run the job engine in this process (default true). */
  worker?: boolean;
  /** An API-only instance (`serve --no-worker`) never runs a job: plugins need not prepare for jobs (runsJobs). */
  apiOnly?: boolean;
  /** Render videos smaller than their templates' size (tests); the code path is the production one. */
  renderScale?: number;
  /** Where the Studio's files come from (default: the binary's, or a build of studio/ when run from source). */
  studioFiles?: () => Promise<StudioFile[]>;
};

/**
 * Every job kind an instance registers: buildDomain and buildHttp register them all, whatever the settings, and
 * plugins cannot add any (their context holds no job engine). `vitrin jobs list --kind` checks against this list
 * without starting a service; a test keeps it equal to a started engine's, which the admin API checks against.
 */
export const JOB_KINDS: readonly string[] = [DEKUPE_JOB, IDEMPOTENCY_PURGE_JOB, RENDER_JOB, RETENTION_JOB, TOP_UP_EXPIRE_JOB, WEBHOOK_JOB].sort();

/** What every later step builds on: the instance's settings, clock, logger, database, plugins and templates. */
type Foundation = {
  config: Config;
  opts: ServiceOptions;
  clock: Clock;
  logger: Logger;
  db: Db;
  plugins: Plugins;
  templates: TemplateRegistry;
  idle: IdleReclaim;
  metrics: Metrics;
  /** Idempotency keys: made before the domain, whose write transactions mark a POST's key as they commit. */
  idempotency: Idempotency;
};

/** The dekupe job runs the products folder's handler, one at a time; a dead job marks the cut-out failed. */
function registerDekupeJob(jobs: JobEngine, dekupe: Dekupe) {
  jobs.register<DekupeJobPayload>(DEKUPE_JOB, (job) => dekupe.run(job.payload, job.signal), {
    concurrency: 1,
    maxAttempts: 3,
    onDead: (tx, job) => {
      const payload = job.payload as Partial<DekupeJobPayload> | undefined;
      if (typeof payload?.productId === "string") return dekupe.onDead(tx, payload as DekupeJobPayload, job.error);
    },
  });
}

/** The job engine and the domain modules over it (their jobs registered, not yet started). */
function buildDomain(f: Foundation) {
  const { config, opts, clock, logger, plugins, templates, idle, metrics } = f;
  // A POST holding an Idempotency-Key marks it in each transaction that carries its work out (idempotency-writes.ts).
  const db = idempotentWrites(f.db, (tx, held) => f.idempotency.markCarriedOut(tx, held));
  const jobs = new JobEngine({
    db,
    clock,
    logger: logger.child({ component: "jobs" }),
    pollMs: config.pollMs,
    leaseMs: config.jobLeaseMs,
    observeDeath: metrics.observeJobDeath,
  });
  const image = { allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.fetchTimeoutMs, resolve: opts.resolve };
  const products = createProducts({ db, clock, storage: plugins.storage, jobs, logger, image });
  const brand = createBrand({ db, clock, storage: plugins.storage, logger, image });
  // Webhook receivers: the image rules, plus the private hosts the operator trusts by name.
  const outbound = { allowPrivateNetworks: config.allowPrivateNetworks, allowHosts: config.webhookAllowHosts, resolve: opts.resolve };
  const webhooks = createWebhooks({
    db,
    clock,
    logger: logger.child({ component: "webhooks" }),
    jobs,
    outbound: { ...outbound, timeoutMs: config.webhookTimeoutMs },
    observeAttempt: metrics.observeWebhookAttempt,
  });
  const accounts = createAccounts(db, clock, logger.child({ component: "accounts" }), { threshold: config.lowBalanceThreshold, webhooks });
  const dekupe = createDekupe({
    db,
    clock,
    storage: plugins.storage,
    removal: idle.wrap(plugins.backgroundRemoval, "remove"),
    jobs,
    logger,
    webhooks,
    observe: metrics.observeDekupe,
  });
  registerDekupeJob(jobs, dekupe);
  /** The same address rules as image ingest, applied when a webhook URL is given (422 if refused). */
  const checkUrl = (url: string, field = "url") => checkOutboundUrl(url, { ...outbound, field });
  const billing = createBilling({
    db,
    clock,
    config,
    logger: logger.child({ component: "billing" }),
    payment: plugins.payment,
    jobs,
    webhooks,
  });

  const music = createMusic(config.musicDirs);
  const videos = createVideos({
    db,
    clock,
    config,
    logger: logger.child({ component: "videos" }),
    storage: plugins.storage,
    renderer: idle.wrap(plugins.renderer, "render"),
    templates,
    jobs,
    webhooks,
    billing,
    checkUrl,
    brand,
    music,
    renderScale: opts.renderScale,
    renderTimeoutMs: config.renderTimeoutMs,
    observeRender: metrics.observeRender,
    dekupeWaitMs: config.dekupeWaitMs,
  });
  return { jobs, accounts, products, dekupe, webhooks, billing, videos, checkUrl, brand, music };
}

/** Whether the instance is shutting down: stop() sets it, and the HTTP app answers accordingly. */
type RunState = { shuttingDown: boolean };

/** The HTTP face: rate limiter, idempotency (and its purge job), the auth gate, the guard and every route. */
async function buildHttp(f: Foundation, domain: ReturnType<typeof buildDomain>, state: RunState) {
  const { config, clock, logger, db, plugins, templates, metrics, idempotency } = f;
  const { jobs, accounts, products, dekupe, webhooks, billing, videos, checkUrl } = domain;
  const limiter = createRateLimiter(db, config.rateLimitPerMinute, config.rateLimitBurst, clock);
  // Video previews draw a frame each: their own, smaller budget per account (the whole minute's worth at once).
  const previewLimiter = createRateLimiter(db, config.previewsPerMinute, config.previewsPerMinute, clock);
  const idempotencyPurge = registerIdempotencyPurge({ jobs, db, clock, idempotency });
  // A write at start: on a full disk or a locked database the service still starts, and the next start queues it.
  await idempotencyPurge.schedule().catch((err) => logger.warn("could not queue the idempotency key purge", { err }));
  await videos.scheduleRetention().catch((err) => logger.warn("could not queue the video retention job", { err }));
  void videos.sweepScratch().then(
    (count) => count > 0 && logger.info("removed scratch folders left by an instance that stopped mid-render", { count }),
    (err) => logger.warn("could not sweep the scratch folder", { err }),
  );
  const meta = requestMetas();

  const trustedProxies = config.trustedProxies.length > 0 ? trustedProxyList(config.trustedProxies) : null;
  const auth = new AuthGate(new AuthThrottle({ limit: config.authFailuresPerMinute, clock }), trustedProxies, metrics.authFailure);
  const sessions = createStudioSessions(db, clock, config.adminToken);
  const guard: GuardDeps = { accounts, limiter, idempotency, meta, adminToken: config.adminToken, auth, sessions };
  const studioFiles = createStudioAssets(f.opts.studioFiles ?? defaultStudioFiles, logger.child({ component: "studio" }));
  const fileOrigins = foreignFileOrigins(plugins.storage.url("studio-csp-probe"), config.publicUrl);
  const app = createHttpApp({
    config,
    clock,
    logger,
    metrics,
    plugins,
    meta,
    isShuttingDown: () => state.shuttingDown,
    readiness: async () => ({ database: { ok: await db.ping() } }),
    onIdempotentOutcome: (m, status, body, transient) => recordIdempotentError(idempotency, logger, m, status, body, transient),
    notFoundPage: studioNotFound(studioFiles, fileOrigins),
  })
    .use(productRoutes(guard, products, dekupe))
    .use(brandRoutes(guard, domain.brand))
    .use(musicRoutes(guard, domain.music))
    .use(webhookRoutes(guard, webhooks, accounts, (url) => checkUrl(url)))
    .use(webhookEndpointRoutes(guard, webhooks, (url) => checkUrl(url)))
    .use(balanceRoutes(guard, billing))
    .use(videoRoutes(guard, videos, templates, config.publicUrl, { cacheBytes: config.previewCacheBytes, renderer: plugins.renderer, limiter: previewLimiter }))
    .use(paymentRoutes(guard, billing, plugins.payment))
    .use(adminRoutes(guard, accounts, checkUrl))
    .use(adminTokenRoutes(guard, accounts))
    .use(loginLinkRoutes(guard, config.publicUrl))
    .use(jobRoutes(guard, jobs))
    .use(tokenRoutes(guard))
    .use(studioSessionRoutes({ accounts, sessions, auth, adminToken: config.adminToken, trustedProxies }))
    .use(studioRoutes(studioFiles, fileOrigins));
  return { app };
}

/**
 * The origin stored files' links point to when it is not the service's own (an S3 bucket's presigned links, a CDN):
 * the Studio's CSP lets images and videos load from there too, or it could show none of them.
 */
function foreignFileOrigins(probeUrl: string, publicUrl: string): string[] {
  const origin = URL.parse(probeUrl)?.origin;
  return origin && origin !== "null" && origin !== URL.parse(publicUrl)?.origin ? [origin] : [];
}

type Domain = ReturnType<typeof buildDomain>;
type HttpApp = Awaited<ReturnType<typeof buildHttp>>["app"];

/** Serving and stopping: listen (API, and jobs unless API-only), listenWorker (jobs only), and a graceful stop. */
function createLifecycle(f: Foundation, domain: Domain, app: HttpApp, state: RunState) {
  const { config, opts, logger, db, plugins, idle } = f;
  const { jobs, webhooks, accounts } = domain;
  let server: Server<unknown> | null = null;
  const runWorker = opts.worker ?? true;
  let stopping: Promise<void> | null = null;
  function startWorker() {
    jobs.start();
    webhooks.resume().catch((err) => logger.error("could not queue waiting webhook deliveries", { err }));
  }
  return {
    server: () => server,
    /** Starts the HTTP server (and the job engine unless this is an API-only instance). */
    listen(port = config.port, hostname = config.host) {
      // Bodies are capped as announced (onRequest) and while read (src/http/body.ts), both with the catalogue's 413;
      // Bun's own limit would answer a bare 413 (no JSON, no request id), so it sits far above anything vitrin reads.
      app.listen({ port, hostname, reusePort: false, maxRequestBodySize: BUN_BODY_BACKSTOP });
      server = app.server;
      if (runWorker) startWorker();
      logger.info("listening", { url: `http://${hostname}:${server?.port}`, public_url: config.publicUrl });
      return server!;
    },
    /**
     * A jobs-only instance (`vitrin worker`): runs the job engine and answers /healthz, /readyz and /metrics on the
     * port, so an orchestrator can watch it; the API itself is served by `serve` instances.
     */
    listenWorker(port = config.port, hostname = config.host) {
      const ops = new Set(["/healthz", "/readyz", "/metrics"]);
      server = Bun.serve({
        port,
        hostname,
        reusePort: false,
        fetch: (request) =>
          ops.has(new URL(request.url).pathname)
            ? app.handle(request)
            : Response.json(errors.workerOnly().toJSON(), { status: 404 }),
      });
      startWorker();
      logger.info("worker listening", { url: `http://${hostname}:${server.port}` });
      return server;
    },
    /**
     * Graceful shutdown: refuse new work, let requests and jobs finish within the deadline, close everything. The job
     * engine stops claiming at once, beside the listener's close, so both drain under the one deadline.
     */
    stop(): Promise<void> {
      stopping ??= (async () => {
        state.shuttingDown = true;
        const deadline = config.shutdownTimeoutMs;
        const jobsStopped = jobs.stop({ deadlineMs: deadline });
        if (server) {
          const drained = server.stop(false);
          await Promise.race([drained, Bun.sleep(deadline)]);
          server.stop(true);
        }
        await jobsStopped;
        idle.close();
        await plugins.close();
        // A token's last use still being written would otherwise meet a closed database.
        await accounts.tokenUseSettled();
        await db.close();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}

/** Bun's request-body limit, far above VITRIN_MAX_BODY_BYTES' ceiling: vitrin's own caps answer first. */
const BUN_BODY_BACKSTOP = 2 ** 40;

export async function createService(config: Config, opts: ServiceOptions = {}) {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const { db, plugins, templates } = await openFoundation(config, opts, logger);
  if (db.dialect === "postgres" && config.storage === "local") {
    // PostgreSQL is how instances share one service; files on one instance's disk are not shared with the others.
    logger.warn("VITRIN_STORAGE=local with PostgreSQL: instances read each other's images and videos only if their VITRIN_DATA_DIR is one shared folder (NFS, say); otherwise use VITRIN_STORAGE=s3 when running more than one");
  }

  // Cut-outs and renders leave freed native memory mapped; once they stop for a while it goes back (native/idle.ts).
  const idle = createIdleReclaim({ idleMs: config.idleTrimMs, logger });
  const metrics = createMetrics();
  const idempotency = createIdempotency(db, clock, { leaseMs: config.idempotencyLeaseMs });
  const foundation: Foundation = { config, opts, clock, logger, db, plugins, templates, idle, metrics, idempotency };
  const domain = buildDomain(foundation);
  const { jobs, accounts, products, dekupe, webhooks, billing, videos, checkUrl } = domain;

  metrics.watchJobs(() => jobs.stats());
  metrics.watchWebhooks(() => webhooks.backlog());

  const state: RunState = { shuttingDown: false };
  const { app } = await buildHttp(foundation, domain, state);
  const life = createLifecycle(foundation, domain, app, state);

  const service = {
    config,
    clock,
    logger,
    db,
    plugins,
    jobs,
    accounts,
    products,
    dekupe,
    webhooks,
    billing,
    videos,
    templates,
    checkUrl,
    idempotency,
    metrics,
    idle,
    app,
    /** In-process request handling, as tests use it. */
    handle: (request: Request) => app.handle(request),
    get server() {
      return life.server();
    },
    // listen, listenWorker and stop are said in createLifecycle.
    listen: life.listen,
    listenWorker: life.listenWorker,
    stop: life.stop,
  };
  return service;
}

export type Service = Awaited<ReturnType<typeof createService>>;
