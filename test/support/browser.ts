// Studio in a real browser, for the test/studio-*.test.ts suites and scripts/studio-screenshots.ts: Debian's chromium
// driven by playwright-core, a real vitrin listening on loopback, a log of every request the pages make, and axe-core.
import { afterAll, beforeAll, describe } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { loadConfig } from "../../src/config";
import { createService, type Service } from "../../src/service";
import { createPostgresDatabase, freePort, onPostgres, tempDir } from "../helpers";

/** The browser under test: Debian's package (`apt-get install chromium`), never one Playwright downloads. */
export const CHROMIUM = process.env.VITRIN_CHROMIUM || "/usr/bin/chromium";
export const STUDIO_ADMIN_TOKEN = "studio-admin-token-0123456789abcdef";
const inCI = /^(1|true|yes)$/i.test(process.env.CI ?? "");
export const chromiumPresent = existsSync(CHROMIUM);

if (!chromiumPresent && !inCI) {
  console.warn(`Studio browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set VITRIN_CHROMIUM)`);
}

/**
 * `describe` for a browser suite: skipped (with the warning above) when chromium is missing on a developer's machine;
 * under CI=true it runs and fails at launch, so a CI without the browser cannot pass by skipping.
 */
export const browserRuns = chromiumPresent || inCI;
export const describeBrowser: typeof describe = browserRuns ? describe : (describe.skip as typeof describe);

/** Flags for a quiet, reproducible headless run: nothing of Chrome's own (updates, sync, QUIC probes) goes out. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

/**
 * The environment chromium starts with. Once this process has rendered a video, the ffmpeg renderer has pointed
 * FONTCONFIG_FILE at a configuration with no font folders (plugins/renderer-ffmpeg/fonts.ts); chromium inheriting it
 * finds no fonts at all and aborts in its font manager, so the browser gets the host's fontconfig back.
 */
function browserEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  if (env.FONTCONFIG_FILE?.includes("vitrin-fontconfig")) delete env.FONTCONFIG_FILE;
  return env;
}

/** Launches chromium. Playwright gives each launch a fresh, empty user-data-dir (a temporary profile it deletes). */
/** Whether an error says Playwright's client lost chromium (its connection closed), rather than a page failing a check. */
export function browserLost(err: unknown): boolean {
  return /Cannot find parent object|was not bound in the connection|Target page, context or browser has been closed|Browser has been closed|Target closed/.test(String(err));
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, env: browserEnv(), timeout: 60_000 });
}

export type StudioServer = {
  /** The service's own origin, e.g. http://127.0.0.1:41234 (also its VITRIN_PUBLIC_URL). */
  base: string;
  service: Service;
  dir: string;
  /** A request to the live server over HTTP; `token` as a bearer token, `cookie` as a Cookie header. */
  api<T = any>(
    method: string,
    path: string,
    opts?: { token?: string; cookie?: string; body?: unknown; form?: FormData; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T; headers: Headers }>;
  newAccount(input?: { name?: string; credits?: number; language?: string }): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
};

export type StudioServerOptions = {
  /** `isnet` (the real model, default) or `none` (the photo passes through as its own cut-out). */
  backgroundRemoval?: "isnet" | "none";
  /** Render videos smaller than their templates' size: the production code path, a fraction of the pixels. */
  renderScale?: number;
  /** Run the job worker in the server (default true); false leaves the jobs to the test (service.jobs.tick()). */
  worker?: boolean;
  env?: Record<string, string>;
};

/**
 * A real vitrin on loopback with the system clock and the job worker on: its own data dir (and its own PostgreSQL
 * database on the PostgreSQL pass), the admin token above, ISNet and the ffmpeg renderer. Local storage keeps every
 * file URL on the service's origin, which is what Studio's network rule expects.
 */
export async function startStudioServer(opts: StudioServerOptions = {}): Promise<StudioServer> {
  const dir = tempDir("vitrin-studio-");
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const pg = onPostgres ? await createPostgresDatabase() : null;
  const config = loadConfig({
    ...(pg ? { VITRIN_DATABASE_URL: pg.url } : {}),
    VITRIN_DATA_DIR: dir,
    VITRIN_PUBLIC_URL: base,
    VITRIN_HOST: "127.0.0.1",
    VITRIN_PORT: String(port),
    VITRIN_ADMIN_TOKEN: STUDIO_ADMIN_TOKEN,
    VITRIN_STORAGE: "local",
    VITRIN_ALLOW_PRIVATE_NETWORKS: "true",
    VITRIN_LOG_LEVEL: "warn",
    VITRIN_RATE_LIMIT: "0",
    VITRIN_POLL_MS: "100",
    VITRIN_RENDER_THREADS: "2",
    VITRIN_BACKGROUND_REMOVAL: opts.backgroundRemoval ?? "isnet",
    ...opts.env,
  });
  let service: Service;
  try {
    service = await createService(config, { worker: opts.worker ?? true, env: {}, renderScale: opts.renderScale ?? 0.25 });
  } catch (e) {
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  service.listen(port, "127.0.0.1");
  const server: StudioServer = {
    base,
    service,
    dir,
    async api(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.cookie) headers.cookie = o.cookie;
      let body: FormData | string | undefined = o.form;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers["content-type"] = "application/json";
      }
      const res = await fetch(`${base}${path}`, { method, headers, body, redirect: "manual" });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // Not JSON (HTML, an empty 204): the text as it came.
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async newAccount(input = {}) {
      const res = await server.api("POST", "/v1/admin/accounts", { token: STUDIO_ADMIN_TOKEN, body: input });
      if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.account.id, token: res.body.token };
    },
    async close() {
      try {
        await service.stop();
      } finally {
        await pg?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return server;
}

/** Every request a browser context made, and what its pages said on the console, for the assertions below. */
export type NetworkLog = { requests: string[]; consoleErrors: string[] };

/**
 * A fresh context (no cookies, no storage) on `base` with its network log: every request URL any of its pages makes
 * (documents, scripts, styles, fonts, images, media, fetches) and every console error and uncaught page error.
 */
export async function openContext(
  browser: Browser,
  base: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; log: NetworkLog }> {
  const context = await browser.newContext({
    baseURL: base,
    locale: "en-US",
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
    ...options,
  });
  const log: NetworkLog = { requests: [], consoleErrors: [] };
  context.on("request", (request) => log.requests.push(request.url()));
  context.on("page", (page) => watchConsole(page, log));
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  return { context, page, log };
}

function watchConsole(page: Page, log: NetworkLog) {
  page.on("console", (message) => {
    if (message.type() === "error") log.consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => log.consoleErrors.push(`${page.url()}: uncaught ${error.message}`));
}

/** The requests of the log that left the service's origin (data: and blob: URLs stay in the page). */
export function foreignRequests(log: NetworkLog, base: string): string[] {
  const origin = new URL(base).origin;
  return log.requests.filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin);
}

/** Console errors that are Content-Security-Policy refusals: Studio must need nothing its own CSP forbids. */
export function cspViolations(log: NetworkLog): string[] {
  return log.consoleErrors.filter((line) => /Content Security Policy/i.test(line));
}

const AXE_SOURCE = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

/**
 * axe-core's serious and critical violations on the page as it is now, one readable line each (empty when clean).
 * axe is evaluated through the DevTools protocol rather than added as a <script> tag: Studio's CSP (script-src 'self')
 * rightly refuses injected inline scripts, and weakening it for the test (bypassCSP) would test another page.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(`window.axe || (function(){ ${AXE_SOURCE}\n }).call(window)`);
  const violations = (await page.evaluate(
    `window.axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => {
      const where = v.nodes.slice(0, 4).map((n) => n.target.join(" "));
      const more = v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : "";
      return `${v.impact} ${v.id}: ${v.help} (${where.join(", ")}${more})`;
    });
}

/**
 * The violations of only these axe-core rules, whatever their impact (axeViolations keeps the serious and critical
 * ones): for rules whose findings axe rates moderate, such as landmark-unique, landmark-one-main and region.
 */
export async function axeRuleViolations(page: Page, rules: string[]): Promise<string[]> {
  await page.evaluate(`window.axe || (function(){ ${AXE_SOURCE}\n }).call(window)`);
  const violations = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: "rule", values: ${JSON.stringify(rules)} }, resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/** How wide the page's scrolling box is: more than the viewport means a horizontal scroll bar. */
export function scrollWidth(page: Page): Promise<number> {
  return page.evaluate("document.scrollingElement.scrollWidth") as Promise<number>;
}

/** Opens `path` at `width` px and waits for its one <h1> (named as `heading` says) and a quiet network. */
export async function openPage(page: Page, path: string, heading: RegExp, width = 1280): Promise<void> {
  await page.setViewportSize({ width, height: 800 });
  await page.goto(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.waitForLoadState("networkidle");
}

/** Switches Studio's language with its header switch. */
export async function switchLanguage(page: Page, name: "English" | "Türkçe"): Promise<void> {
  await page.getByRole("button", { name, exact: true }).click();
}

/** Signs in on /sign-in with a token (the `API token` field and the `Sign in` button) and waits to leave the page. */
export async function signInWithToken(page: Page, token: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname !== "/sign-in");
}

/** Signs the context in without the sign-in page (POST /studio/session), e.g. for a browser in another language. */
export async function startSession(context: BrowserContext, base: string, token: string): Promise<void> {
  const res = await context.request.post(`${base}/studio/session`, { data: { token } });
  if (res.status() !== 200) throw new Error(`POST /studio/session answered ${res.status()}: ${await res.text()}`);
}

/** The session cookie the context holds for the service, as a Cookie header value (throws when there is none). */
export async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === "vitrin_session");
  if (!cookie) throw new Error("the browser holds no vitrin_session cookie");
  return `${cookie.name}=${cookie.value}`;
}

/** A photo from test/fixtures/photos, as a path for setInputFiles. */
export const fixturePhoto = (name = "coffee.jpg") => join(import.meta.dir, "..", "fixtures", "photos", name);

/** What a suite of Studio tests works with: see signedInSuite. */
export type SignedInStudio = { server: StudioServer; browser: Browser; page: Page; log: NetworkLog; account: { id: string; token: string } };

/**
 * The usual frame of a Studio suite, registered in the describe block it is called in: a server (cut-outs off unless
 * `options` say otherwise) and chromium started together, a new account, `seed` (products and the like, before the
 * page opens) and one page signed in as the account; `use` hands them to the suite's own variables. Both are closed
 * after the suite.
 */
export function signedInSuite(
  account: Parameters<StudioServer["newAccount"]>[0],
  use: (s: SignedInStudio) => void,
  seed?: (s: Omit<SignedInStudio, "page" | "log">) => Promise<void>,
  options: StudioServerOptions = { backgroundRemoval: "none" },
): void {
  let made: Partial<SignedInStudio> = {};
  beforeAll(async () => {
    const [server, browser] = await Promise.all([startStudioServer(options), launchChromium()]);
    made = { server, browser };
    const acct = await server.newAccount(account);
    await seed?.({ server, browser, account: acct });
    const { page, log } = await openContext(browser, server.base);
    await signInWithToken(page, acct.token);
    use({ server, browser, page, log, account: acct });
  }, 180_000);
  afterAll(async () => {
    await made.browser?.close();
    await made.server?.close();
  });
}
