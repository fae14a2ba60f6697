// `npm run studio:screenshots [outdir]`: refreshes the Studio screenshots under docs/studio/ that the README and
// docs/studio.md show. Starts a real vitrin on loopback with demo data (an account, a product with its ISNet cut-out,
// a completed video), signs in through the sign-in page with Debian's chromium and photographs each page: desktop
// 1280x800 in light mode, and the products and video pages once more at 375 px wide and in dark mode.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
import {
  CHROMIUM,
  chromiumPresent,
  launchChromium,
  openContext,
  signInWithToken,
  startStudioServer,
  STUDIO_ADMIN_TOKEN,
  type StudioServer,
} from "../test/support/browser";
import { seedDemo, type Demo } from "../test/support/studio-demo";

type Shot = { file: string; path: (d: Demo) => string; width?: number; dark?: boolean };

const ACCOUNT_SHOTS: Shot[] = [
  { file: "products", path: () => "/products" },
  { file: "product", path: (d) => `/products/${d.product.id}` },
  { file: "videos", path: () => "/videos" },
  { file: "new-video", path: () => "/videos/new" },
  { file: "video", path: (d) => `/videos/${d.video.id}` },
  { file: "balance", path: () => "/balance" },
  { file: "developers", path: () => "/developers" },
  { file: "products-mobile", path: () => "/products", width: 375 },
  { file: "video-mobile-dark", path: (d) => `/videos/${d.video.id}`, width: 375, dark: true },
  { file: "product-dark", path: (d) => `/products/${d.product.id}`, dark: true },
];

const ADMIN_SHOTS: Shot[] = [
  { file: "admin-health", path: () => "/admin" },
  { file: "admin-accounts", path: () => "/admin/accounts" },
  { file: "admin-account", path: (d) => `/admin/accounts/${d.account.id}` },
  { file: "admin-jobs", path: () => "/admin/jobs" },
];

/** Opens the page, waits until it has its heading and its images and media have arrived, and writes the PNG. */
async function shoot(page: Page, shot: Shot, demo: Demo, outdir: string): Promise<string> {
  const width = shot.width ?? 1280;
  await page.setViewportSize({ width, height: width < 600 ? 812 : 800 });
  await page.emulateMedia({ colorScheme: shot.dark ? "dark" : "light" });
  await page.goto(shot.path(demo));
  await page.getByRole("heading", { level: 1 }).waitFor();
  await page.waitForLoadState("networkidle");
  // Images decoded and fonts in place, so the picture is what a visitor sees a moment after opening the page.
  await page.evaluate(`Promise.all([document.fonts.ready, ...[...document.images].map(i => i.decode().catch(() => null))])`);
  // A player that has not decoded a frame draws a loading ring over its poster: show a frame near the end instead.
  await page.evaluate(`Promise.all([...document.querySelectorAll("video")].map(v => new Promise(done => {
    const seek = () => { v.addEventListener("seeked", done, { once: true }); v.currentTime = v.duration * 0.7; };
    v.readyState >= 1 ? seek() : v.addEventListener("loadedmetadata", seek, { once: true });
  })))`);
  // Played for a moment and paused there, the player has data ahead and no reason to show its ring.
  await page.evaluate(`Promise.all([...document.querySelectorAll("video")].map(async v => { v.muted = true; await v.play(); v.pause(); }))`);
  await page.waitForFunction(`[...document.querySelectorAll("video")].every(v => v.readyState >= 3)`, undefined, { timeout: 30_000 });
  const file = join(outdir, `${shot.file}.png`);
  // Quantised to a palette: a third of the bytes in the repository, no difference a reader of the docs can see.
  const png = await sharp(await page.screenshot({ animations: "disabled" }))
    .png({ palette: true, quality: 90, effort: 10, compressionLevel: 9 })
    .toBuffer();
  await Bun.write(file, png);
  return file;
}

/** Photographs the sign-in page, then every shop page as the demo account and every operator page as the admin. */
async function shootAll(browser: Browser, server: StudioServer, demo: Demo, outdir: string): Promise<string[]> {
  const written: string[] = [];
  const guest = await openContext(browser, server.base);
  written.push(await shoot(guest.page, { file: "sign-in", path: () => "/sign-in" }, demo, outdir));
  await guest.context.close();
  for (const [token, shots] of [
    [demo.account.token, ACCOUNT_SHOTS],
    [STUDIO_ADMIN_TOKEN, ADMIN_SHOTS],
  ] as const) {
    const { context, page } = await openContext(browser, server.base);
    await signInWithToken(page, token);
    for (const shot of shots) written.push(await shoot(page, shot, demo, outdir));
    await context.close();
  }
  return written;
}

async function main() {
  if (!chromiumPresent) {
    console.error(`studio:screenshots needs Debian's chromium at ${CHROMIUM} (apt-get install chromium, or set VITRIN_CHROMIUM)`);
    process.exit(1);
  }
  const outdir = resolve(process.argv[2] ?? join(import.meta.dir, "..", "docs", "studio"));
  mkdirSync(outdir, { recursive: true });
  // Half-size renders: the video page's poster and player look like the real thing without a full-size render.
  const server = await startStudioServer({ renderScale: 0.5 });
  let browser: Browser | null = null;
  try {
    const demo = await seedDemo(server);
    browser = await launchChromium();
    const written = await shootAll(browser, server, demo, outdir);
    for (const file of written) console.log(file);
  } finally {
    await browser?.close();
    await server.close();
  }
}

await main();
