// The words of the videos folder: its job kind, a video row, a request, and the dependencies every function takes.
import type { Db, schema } from "../db";
import type { Clock, Logger, MetadataInput } from "../kernel";
import type { Config } from "../config";
import type { JobEngine } from "../jobs";
import type { RendererPlugin, StoragePlugin } from "../plugins";
import type { Webhooks } from "../webhooks";
import type { Billing } from "../billing";
import type { TemplateRegistry } from "../templates";
import type { Brand } from "../brand";
import type { Music } from "../music";
import type { LayoutVerdicts } from "./verdicts";

export const RENDER_JOB = "video.render";
/** How often a render waiting for its product's cut-out looks again. */
export const DEKUPE_WAIT_MS = 2000;

export type VideoRow = typeof schema.videos.$inferSelect;

export type NewVideo = {
  template_id: string;
  product_id: string;
  user_prompt?: Record<string, unknown>;
  language?: string;
  webhook_url?: string;
  /** "auto" (default: the template's mood), a track id, or "none". */
  music?: string;
  /** The format: "9:16" (default), "4:5", "1:1" or "16:9". */
  aspect_ratio?: string;
  /** The client's own key-value strings (Stripe's limits); returned with the video and in its webhooks. */
  metadata?: MetadataInput;
};

export type VideoDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  storage: StoragePlugin;
  renderer: RendererPlugin;
  templates: TemplateRegistry;
  jobs: JobEngine;
  webhooks: Webhooks;
  billing: Billing;
  checkUrl: (url: string, field?: string) => Promise<void>;
  /** The account's brand kit: its colours under the video's own, its logo into the render. */
  brand?: Pick<Brand, "forRender">;
  /** The music catalogue; without it videos have no sound. */
  music?: Music;
  /** 1 renders at full size; tests render smaller through the same code. */
  renderScale?: number;
  renderTimeoutMs: number;
  /** How long a video waits for its product's cut-out before it fails (and is refunded). */
  dekupeWaitMs: number;
  /** Layout verdicts already reached on this instance (createVideos makes one). */
  layoutVerdicts?: LayoutVerdicts;
  /** Told each render attempt's outcome and how long it took (metrics). */
  observeRender?: (template: string, outcome: "completed" | "failed", seconds: number) => void;
};
