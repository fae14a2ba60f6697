// The storage kit run against every storage plugin: local disk, S3 (presigned and public links) on a real s3rver,
// the example folder plugin storage-memory, and a plugin that ignores download names (which the contract allows).
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../../plugins/storage-local";
import { createS3Storage } from "../../plugins/storage-s3";
import { startS3Server, type S3Server } from "../support/s3";
import { EXAMPLES_DIR, examplePlugin, FOLDER_CDN_URL, folderPlugin } from "./example-plugins";
import { storageConformance } from "./storage";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

/** Local storage on a fresh folder, as the service makes it. */
async function localStorage() {
  const storage = createLocalStorage(mkdtempSync(join(tmpdir(), "vitrin-storage-")), "http://cdn.test/files");
  await storage.init?.();
  return storage;
}
const underCdn = (url: string, key: string) => expect(url).toBe(`http://cdn.test/files/${key}`);

storageConformance("local", localStorage, { expectUrl: underCdn, serves: true, namesDownloads: true });

// Naming downloads is optional: local storage with its url() stripped of the option conforms as well.
storageConformance(
  "a storage that ignores download names",
  async () => {
    const local = await localStorage();
    return { ...local, url: (key: string) => local.url(key) };
  },
  { expectUrl: underCdn, serves: true },
);

storageConformance(
  "s3 with presigned links",
  async () => {
    const storage = createS3Storage(s3.options(await s3.newBucket()));
    await storage.init?.();
    return storage;
  },
  {
    expectUrl(url, key) {
      const u = new URL(url);
      expect(`${u.origin}${u.pathname}`).toMatch(new RegExp(`^${s3.endpoint}/bucket-[0-9-]+/${key}$`));
      expect(u.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
      expect(u.searchParams.get("X-Amz-Expires")).toBe("3600");
    },
    fetchable: true,
    namesDownloads: true,
  },
);

storageConformance(
  "s3 with public links",
  async () => {
    const bucket = await s3.newBucket();
    // s3rver serves unsigned GETs, so it stands in for a publicly readable bucket (or a CDN in front of one).
    const storage = createS3Storage(s3.options(bucket, { publicUrl: `${s3.endpoint}/${bucket}` }));
    await storage.init?.();
    return storage;
  },
  { expectUrl: (url, key) => expect(url).toMatch(new RegExp(`^${s3.endpoint}/bucket-[0-9-]+/${key}$`)), fetchable: true },
);

storageConformance("example folder plugin storage-memory", () => examplePlugin("storage", "memory"), {
  expectUrl: (url, key) => expect(url).toBe(`${FOLDER_CDN_URL}/${key}`),
  serves: true,
  namesDownloads: true,
});

// As a plugin author runs the kit on a folder of their own (docs/plugins.md, "Conformance kits").
storageConformance("a plugin folder of one's own (storage-memory's, through folderPlugin)", () => folderPlugin(join(EXAMPLES_DIR, "storage-memory"), "storage", "memory"), {
  expectUrl: (url, key) => expect(url).toBe(`${FOLDER_CDN_URL}/${key}`),
  serves: true,
});
