// The composition root: builds one vitrin instance (database, plugins, job engine, domain modules, HTTP app)
// from a config, and knows how to start serving and how to shut down gracefully.
import type { Server } from "bun";
import type { Config } from "./config";
import { createLogger, type Logger } from "./kernel";
import { openDatabase, type Db } from "./db";
import { systemClock, type Clock } from "./kernel";
import { createAccounts } from "./accounts";
import { adminRoutes } from "./http/routes/accounts";
import { createProducts, DEKUPE_JOB } from "./products";
import { createDekupe, type DekupeJobPayload } from "./products/dekupe";
import { productRoutes } from "./http/routes/products";
import { createHttpApp, type RequestMeta } from "./http";
import { createMetrics } from "./http/metrics";
import { createRateLimiter } from "./http/ratelimit";
import { AuthGate } from "./http/auth-gate";
import { AuthThrottle } from "./http/auth-throttle";
import { trustedProxyList } from "./http/client-address";
import { createIdempotency } from "./http/idempotency";
import { recordIdempotentError } from "./http/idempotency-hooks";
import { registerIdempotencyPurge } from "./http/idempotency-purge";
import type { GuardDeps } from "./http/guard";
import { JobEngine } from "./jobs";
import { createIdleReclaim } from "./native/idle";
import { jobRoutes } from "./http/routes/jobs";
import { createWebhooks } from "./webhooks";
import { webhookRoutes } from "./http/routes/webhooks";
import { checkOutboundUrl } from "./net";
import { createBilling } from "./billing/service";
import { balanceRoutes, paymentRoutes } from "./http/routes/billing";
import { createVideos } from "./videos";
import { videoRoutes } from "./http/routes/videos";
import { loadTemplates, type TemplateRegistry } from "./templates";
import { BUILTIN_TEMPLATES } from "../templates";
import type { PluginRegistry } from "./plugins";
import { loadPluginFolders } from "./plugins/load";
import { builtinPlugins } from "../plugins";

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
  /** Render videos smaller than their templates' size (tests); the code path is the production one. */
  renderScale?: number;
};

export async function createService(config: Config, opts: ServiceOptions = {}) {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const db: Db = openDatabase(config.databaseUrl, { poolSize: config.databasePool, busyTimeoutMs: config.databaseBusyTimeoutMs });
  try {
    await db.migrate();
  } catch (e) {
    db.close();
    throw e;
  }
  let plugins;
  let templates: TemplateRegistry;
  try {
    templates = await loadTemplates({ builtin: BUILTIN_TEMPLATES, dirs: config.templateDirs });
    const registry = opts.registry ?? builtinPlugins();
    if (config.pluginDirs.length) await loadPluginFolders(config.pluginDirs, registry, logger);
    plugins = await registry.start({ config, logger, env: opts.env ?? process.env, templates });
  } catch (e) {
    db.close();
    throw e;
  }

  // Cut-outs and renders leave freed native memory mapped; once they stop for a while it goes back (native/idle.ts).
  const idle = createIdleReclaim({ idleMs: config.idleTrimMs, logger });
  const metrics = createMetrics();
  const jobs = new JobEngine({
    db,
    clock,
    logger: logger.child({ component: "jobs" }),
    pollMs: config.pollMs,
    leaseMs: config.jobLeaseMs,
    observeDeath: metrics.observeJobDeath,
  });
  const accounts = createAccounts(db, clock);
  const image = { allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.fetchTimeoutMs, resolve: opts.resolve };
  const products = createProducts({ db, clock, storage: plugins.storage, jobs, logger, image });
  const dekupe = createDekupe({
    db,
    clock,
    storage: plugins.storage,
    removal: idle.wrap(plugins.backgroundRemoval, "remove"),
    jobs,
    logger,
    observe: metrics.observeDekupe,
  });
  jobs.register<DekupeJobPayload>(DEKUPE_JOB, (job) => dekupe.run(job.payload, job.signal), {
    concurrency: 1,
    maxAttempts: 3,
    onDead: (tx, job) => {
      const productId = (job.payload as Partial<DekupeJobPayload> | undefined)?.productId;
      if (typeof productId === "string") return dekupe.onDead(tx, productId, job.error);
    },
  });
  const outbound = { allowPrivateNetworks: config.allowPrivateNetworks, resolve: opts.resolve };
  const webhooks = createWebhooks({
    db,
    clock,
    logger: logger.child({ component: "webhooks" }),
    jobs,
    outbound: { ...outbound, timeoutMs: config.webhookTimeoutMs },
    observeAttempt: metrics.observeWebhookAttempt,
  });
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
    renderScale: opts.renderScale,
    renderTimeoutMs: config.renderTimeoutMs,
    observeRender: metrics.observeRender,
    dekupeWaitMs: config.dekupeWaitMs,
  });

  metrics.watchJobs(() => jobs.stats());
  metrics.watchWebhooks(() => webhooks.backlog());

  function startWorker() {
    jobs.start();
    webhooks.resume().catch((err) => logger.error("could not queue waiting webhook deliveries", { err }));
  }
  const limiter = createRateLimiter(db, config.rateLimitPerMinute, config.rateLimitBurst, clock);
  const idempotency = createIdempotency(db, clock, { leaseMs: config.idempotencyLeaseMs });
  const idempotencyPurge = registerIdempotencyPurge({ jobs, db, clock, idempotency });
  // A write at start: on a full disk or a locked database the service still starts, and the next start queues it.
  await idempotencyPurge.schedule().catch((err) => logger.warn("could not queue the idempotency key purge", { err }));
  const meta = new WeakMap<Request, RequestMeta>();
  let shuttingDown = false;

  const auth = new AuthGate(
    new AuthThrottle({ limit: config.authFailuresPerMinute, clock }),
    config.trustedProxies.length > 0 ? trustedProxyList(config.trustedProxies) : null,
    metrics.authFailure,
  );
  const guard: GuardDeps = { accounts, limiter, idempotency, meta, adminToken: config.adminToken, auth };
  const app = createHttpApp({
    config,
    clock,
    logger,
    metrics,
    plugins,
    meta,
    isShuttingDown: () => shuttingDown,
    readiness: async () => ({ database: { ok: await db.ping() } }),
    onIdempotentOutcome: (m, status, body) => recordIdempotentError(idempotency, logger, m, status, body),
  })
    .use(productRoutes(guard, products, dekupe))
    .use(webhookRoutes(guard, webhooks, accounts, (url) => checkUrl(url)))
    .use(balanceRoutes(guard, billing))
    .use(videoRoutes(guard, videos, templates, config.publicUrl, { cacheBytes: config.previewCacheBytes, renderer: plugins.renderer }))
    .use(paymentRoutes(guard, billing, plugins.payment))
    .use(adminRoutes(guard, accounts))
    .use(jobRoutes(guard, jobs));

  let server: Server<unknown> | null = null;
  const runWorker = opts.worker ?? true;
  let stopping: Promise<void> | null = null;

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
      return server;
    },
    /** Starts the HTTP server (and the job engine unless this is an API-only instance). */
    listen(port = config.port, hostname = config.host) {
      app.listen({ port, hostname, reusePort: false, maxRequestBodySize: config.maxBodyBytes + 64 * 1024 });
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
            : Response.json(
                { error: "Not found", message: "This is a worker instance: it runs jobs and answers only /healthz, /readyz and /metrics." },
                { status: 404 },
              ),
      });
      startWorker();
      logger.info("worker listening", { url: `http://${hostname}:${server.port}` });
      return server;
    },
    /** Graceful shutdown: refuse new work, let requests and jobs finish within the deadline, close everything. */
    stop(): Promise<void> {
      stopping ??= (async () => {
        shuttingDown = true;
        const deadline = config.shutdownTimeoutMs;
        if (server) {
          const drained = server.stop(false);
          await Promise.race([drained, Bun.sleep(deadline)]);
          server.stop(true);
        }
        await jobs.stop({ deadlineMs: deadline });
        idle.close();
        await plugins.close();
        await db.close();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
  return service;
}

export type Service = Awaited<ReturnType<typeof createService>>;
