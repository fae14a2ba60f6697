// The Studio's API types are generated from the live OpenAPI document: this fails when the committed file is stale.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { generateStudioTypes, STUDIO_TYPES_FILE } from "../scripts/studio-types";

describe("studio api types", () => {
  test("studio/src/api-types.d.ts matches what npm run studio:types makes from /openapi.json now", async () => {
    const committed = readFileSync(STUDIO_TYPES_FILE, "utf8");
    const fresh = await generateStudioTypes();
    // A plain boolean first, so a stale file fails with the fix in the message rather than a 9000-line diff.
    if (committed !== fresh) throw new Error("studio/src/api-types.d.ts is stale: run `npm run studio:types` and commit it");
    expect(committed).toContain('"/v1/products"');
  });
});
