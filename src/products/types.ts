// The words of the products folder: its limits and job kind, a product row, requests, and the dependencies its
// functions take.
import type { Db, Orm, schema } from "../db";
import type { Clock, Logger, MetadataInput } from "../kernel";
import type { BackgroundRemovalPlugin, StoragePlugin } from "../plugins";
import type { DekupeHint } from "./dekupe-hint";
import type { DekupeCrop } from "./dekupe-result";
import type { Webhooks } from "../webhooks";

export const MAX_PRODUCTS = 5;
export const DEKUPE_RETRIES = 3;
export const DEKUPE_JOB = "dekupe";

export type ProductRow = typeof schema.products.$inferSelect;
export type DekupeStatus = "processing" | "ready" | "failed" | "off";

export type JobQueue = {
  enqueue(
    tx: Orm,
    kind: string,
    payload: Record<string, unknown>,
    opts?: { dedupeKey?: string; debounceKey?: string; concurrencyKey?: string; priority?: number },
  ): Promise<{ id: string }>;
};

export type ProductDeps = {
  db: Db;
  clock: Clock;
  storage: StoragePlugin;
  jobs: JobQueue;
  logger: Logger;
  image: { allowPrivateNetworks: boolean; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
};

/** `image_url` (http(s) or data:) or `image` (a file uploaded as multipart/form-data): one of the two. */
export type ImageInput = { image_url?: string; image?: Blob };
export type NewProduct = {
  name: string;
  description?: string;
  dekupe?: boolean;
  dekupe_crop?: DekupeCrop;
  metadata?: MetadataInput;
} & ImageInput;
export type ProductPatch = { name?: string; description?: string | null; metadata?: MetadataInput } & ImageInput;

export type DekupeDeps = {
  db: Db;
  clock: Clock;
  storage: StoragePlugin;
  removal: BackgroundRemovalPlugin;
  jobs: JobQueue;
  logger: Logger;
  /** Where `product.dekupe.completed` and `product.dekupe.failed` go when a cut-out attempt finishes. */
  webhooks: Pick<Webhooks, "publish">;
  /** Told each attempt's outcome and how long it took from the job's start (metrics). */
  observe?: (outcome: "ready" | "failed", seconds: number) => void;
};

/** `crop` is the attempt's crop choice (absent: "subject"); `hint`, a retry's hint (checked against the photo). */
export type DekupeJobPayload = { productId: string; crop?: DekupeCrop; hint?: DekupeHint };
