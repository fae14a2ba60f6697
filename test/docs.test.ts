// The docs stay a true map: the README is short and names the test commands CI runs, the generated tables (settings,
// errors) equal what the code makes of them today, every metric is listed with its labels, and every file the docs
// point at exists.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { GENERATED_TABLES, tableIn } from "../scripts/docs-tables";
import { createMetrics } from "../src/http/metrics";

const ROOT = resolve(import.meta.dir, "..");
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (file: string) => Bun.file(join(ROOT, file)).text();

describe("docs", () => {
  test("the README is at most 12 KB", async () => {
    expect((await Bun.file(join(ROOT, "README.md")).bytes()).length).toBeLessThanOrEqual(12 * 1024);
  });

  test("the README names the test commands .ci/run runs", async () => {
    const readme = await read("README.md");
    const commands = [...(await read(".ci/run")).matchAll(/^run_suite "[^"]+" (.+)$/gm)].map((m) => m[1].trim());
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(readme).toContain(command);
  });

  test.each(GENERATED_TABLES.map((t) => [t.file, t] as const))("the generated table in %s is up to date", async (file, table) => {
    const written = tableIn(await read(file), table.header);
    expect(written, `${file} has lost its table; restore its header line "${table.header}"`).not.toBeNull();
    // On a difference: bun run scripts/readme-config.ts (settings) or bun run scripts/docs-errors.ts (errors).
    expect(written).toBe(await table.make());
  });

  test("docs/operations.md names every metric /metrics serves, with its labels", async () => {
    const metrics = createMetrics();
    // Every series once, so each family shows its labels in the text format.
    metrics.observeRequest("GET", "/v1/products", 200, 0.001);
    metrics.authFailure("account", "invalid");
    metrics.observeRender("spotlight", "completed", 1);
    metrics.observeDekupe("ready", 1);
    metrics.observeWebhookAttempt("delivered");
    metrics.observeJobDeath("render");
    metrics.watchJobs(async () => ({ kinds: { render: { queued: 1, oldestQueuedAgeMs: 1000 } } }));
    metrics.watchWebhooks(async () => ({ waiting: 1, oldestDueMs: 1000 }));
    const text = await metrics.registry.metrics();
    const families = new Map<string, Set<string>>();
    for (const [, name] of text.matchAll(/^# TYPE (vitrin_\w+) /gm)) families.set(name, new Set());
    for (const [, sample, labels] of text.matchAll(/^(vitrin_\w+)\{([^}]*)\}/gm)) {
      const family = [...families.keys()].find((f) => sample === f || sample.replace(/_(bucket|sum|count)$/, "") === f);
      for (const [, label] of labels.matchAll(/(\w+)="/g)) if (label !== "le") families.get(family!)!.add(label);
    }
    expect(families.size).toBeGreaterThan(5);
    const page = await read("docs/operations.md");
    const missing = [...families].map(([name, labels]) => `\`${name}${labels.size ? `{${[...labels].join(", ")}}` : ""}\``).filter((written) => !page.includes(written));
    expect(missing).toEqual([]);
  });

  test.each(PAGES)("every link and path in %s names a file that exists", async (page) => {
    const text = await read(page);
    const missing: string[] = [];
    // Markdown links to files of the repository (web links and in-page anchors aside).
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(ROOT, dirname(page), target.split("#")[0]);
      if (!existsSync(path)) missing.push(target);
    }
    // Paths written as code, such as `src/db/postgres.ts` (placeholders like <slot> or * are not paths).
    for (const [, path] of text.matchAll(/`((?:src|plugins|templates|test|scripts|bench|examples|docs|drizzle)\/[^`\s]*)`/g)) {
      if (/[<>*…{}]/.test(path)) continue;
      if (!existsSync(join(ROOT, path.replace(/:\d+$/, "")))) missing.push(path);
    }
    expect(missing).toEqual([]);
  });
});
