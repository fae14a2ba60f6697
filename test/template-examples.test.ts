// The template examples a template author copies (templates/README.md's two and the head of src/templates/api.ts), loaded
// from a folder as written (only a source import made absolute): they pass the layout check in every format and preview; the
// same example with a slip that makes its positions NaN stops the start as the template's fault.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../src/config";
import { productPhoto, startService, tempDir, type TestService } from "./helpers";

const ROOT = join(import.meta.dir, "..");
const API = join(ROOT, "src/templates/api.ts");

/** The README's examples: its first ```ts block (a built-in template) or its second (the same in a folder's form). */
function readmeExample(which: 0 | 1 = 0): string {
  const text = readFileSync(join(ROOT, "templates/README.md"), "utf8");
  const block = [...text.matchAll(/```ts\n([\s\S]*?)```/g)][which];
  if (!block) throw new Error(`templates/README.md has no ts block ${which + 1}`);
  return block[1];
}

/** The example in api.ts's opening comment: the lines from its import to the closing `});`, without `//   `. */
function apiExample(): string {
  const lines = readFileSync(API, "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith("//   import "));
  const end = lines.findIndex((l, i) => i > start && l.startsWith("//   });"));
  if (start < 0 || end < 0) throw new Error("src/templates/api.ts has no example in its opening comment");
  return lines.slice(start, end + 1).map((l) => l.replace(/^\/\/ {3}/, "")).join("\n");
}

let t: TestService;
let token: string;
let productId: string;
let slipDir: string;

beforeAll(async () => {
  const dir = join(tempDir(), "templates");
  slipDir = tempDir();
  mkdirSync(dir);
  const absolute = (code: string) => code.replace(/from "\.\.\/src\/templates\/api"/, `from ${JSON.stringify(API)}`);
  writeFileSync(join(dir, "readme-example.ts"), absolute(readmeExample()));
  // The folder form as written: its one import is `import type`, erased when Bun loads it.
  writeFileSync(join(dir, "readme-folder-example.ts"), readmeExample(1));
  writeFileSync(join(dir, "api-example.ts"), absolute(apiExample()).replace('id: "my-ad"', 'id: "my-ad-api"'));
  // The README's example with a slip an author makes: a field of the safe area by a name it does not have (NaN x).
  const slip = absolute(readmeExample()).replace('id: "my-ad"', 'id: "my-ad-slip"').replace("const x = safe.x + safe.w / 2", "const x = safe.x + safe.width / 2");
  if (!slip.includes("safe.width")) throw new Error("the README's example no longer has the line this test changes");
  // The slip goes in a folder of its own: the start-up check lays it out and refuses to start (see the last test).
  mkdirSync(join(slipDir, "templates"), { recursive: true });
  writeFileSync(join(slipDir, "templates", "slip.ts"), slip);
  t = await startService({ VITRIN_TEMPLATE_DIRS: dir });
  ({ token } = await t.newAccount({ credits: 10 }));
  const photo = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 800, 600)).toString("base64")}`;
  const created = await t.json("POST", "/v1/products", { token, body: { name: "Stoneware mug", image_url: photo, dekupe: false } });
  productId = created.body.id;
});
afterAll(() => t?.close());

for (const id of ["my-ad", "my-folder-ad", "my-ad-api"]) {
  test(`the example template ${id} lays out in every format and language it lists, and previews`, async () => {
    const listed = (await t.json("GET", `/v1/templates/${id}`, { token })).body;
    expect(listed.id).toBe(id);
    for (const aspect_ratio of ["9:16", "4:5", "1:1", "16:9"]) {
      for (const language of listed.languages as string[]) {
        const res = await t.json("POST", "/v1/videos/estimate", { token, body: { template_id: id, product_id: productId, aspect_ratio, language } });
        expect([aspect_ratio, language, res.status, res.body.details ?? null]).toEqual([aspect_ratio, language, 200, null]);
      }
    }
    const preview = await t.call("POST", "/v1/videos/preview", { token, body: { template_id: id, product_id: productId, aspect_ratio: "16:9" } });
    expect([preview.status, preview.status === 200 ? "" : await preview.text()]).toEqual([200, ""]);
    expect(preview.headers.get("content-type")).toBe("image/png");
  });
}

test("a template whose positions come out as NaN stops the start as the template's fault, naming its file and the format", async () => {
  const file = join(slipDir, "templates", "slip.ts");
  const started = await startService({ VITRIN_TEMPLATE_DIRS: join(slipDir, "templates") }).then(
    async (s) => {
      await s.close();
      return null;
    },
    (e: Error) => e,
  );
  expect(started).toBeInstanceOf(ConfigError);
  expect((started as Error).message).toStartWith(`VITRIN_TEMPLATE_DIRS: the template ${file} does not lay out in the 9:16 format with the sample product and copy in English: The template's `);
  expect((started as Error).message).toContain("not a number");
});
