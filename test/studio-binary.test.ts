// The Studio the compiled executable carries, in chromium (issue #22 points 1 and 9): the binary alone, started as a
// self-hoster starts it, serves the pages it embedded; a token signs in, a photo becomes a product, and every request
// stays on the binary's own origin with nothing refused by its CSP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Subprocess } from "bun";
import type { Browser, Page } from "playwright-core";
import { compiledBinary } from "./compiled-binary";
import { childEnv, freePort, onPostgres, tempDir } from "./helpers";
import { axeViolations, cspViolations, describeBrowser, fixturePhoto, foreignRequests, launchChromium, openContext, signInWithToken, type NetworkLog } from "./support/browser";

const SLOW = 300_000;
const ADMIN = "studio-binary-admin-0123456789abcdef";

let dir = "";
let base = "";
let proc: Subprocess | null = null;
let browser: Browser;
let page: Page;
let log: NetworkLog;

/** Starts `vitrin serve` from the compiled file on a free loopback port and waits until /readyz answers 200. */
async function serve(exe: string): Promise<void> {
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  proc = Bun.spawn([exe, "serve"], {
    cwd: dir,
    env: childEnv(dir, port, { VITRIN_ADMIN_TOKEN: ADMIN, VITRIN_RATE_LIMIT: "0", VITRIN_LOG_LEVEL: "warn" }),
    stdout: "ignore",
    stderr: "ignore",
  });
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) return;
    if (proc.exitCode !== null) throw new Error(`vitrin serve exited with ${proc.exitCode}`);
    await Bun.sleep(100);
  }
  throw new Error("the compiled vitrin never became ready");
}

// The build is shared with test/binary.test.ts (one per run). Not on the PostgreSQL passes: the embedded files are
// the same whatever the database, and test/binary.test.ts already runs the binary on PostgreSQL.
const suite = onPostgres ? describe.skip : describeBrowser;

suite("Studio from the compiled executable, in chromium", () => {
  beforeAll(async () => {
    dir = tempDir("vitrin-studio-binary-");
    const [exe, launched] = await Promise.all([compiledBinary(), launchChromium()]);
    browser = launched;
    await serve(exe);
    ({ page, log } = await openContext(browser, base));
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    proc?.kill("SIGTERM");
    await proc?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("a token signs in and `Create product` turns a photo into a product, listed with its picture", async () => {
    const res = await fetch(`${base}/v1/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Binary shop", credits: 5 }),
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    await signInWithToken(page, token);
    await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    await page.getByLabel(/^Image\b/).setInputFiles(fixturePhoto("coffee.jpg"));
    await page.getByLabel(/^Name\b/).fill("Binary cup");
    await page.getByRole("button", { name: "Create product", exact: true }).click();
    const card = page.getByRole("listitem").filter({ hasText: "Binary cup" });
    await page.waitForFunction(
      (el: any) => [...el.querySelectorAll("img")].some((img: any) => img.complete && img.naturalWidth > 0),
      await card.first().elementHandle({ timeout: 30_000 }),
      { timeout: 30_000 },
    );
  }, SLOW);

  test("the page has no serious or critical axe-core violation", async () => {
    expect(await axeViolations(page)).toEqual([]);
  });

  test("every request went to the binary's own origin, and the CSP refused nothing", () => {
    expect(log.requests.some((url) => url.includes("/studio/assets/"))).toBe(true);
    expect(foreignRequests(log, base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
  });
});
