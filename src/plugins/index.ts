// The four plugin slots (storage, background removal, renderer, payment), their contracts, and the registry that
// picks one implementation per slot from config and runs their lifecycle (init in order, close in reverse).
import type { Config } from "../config";
import type { Logger } from "../kernel";
import type { TemplateRegistry } from "../templates";

export type ReadyReport = { ok: boolean; detail?: string };

export type PluginContext = {
  config: Config;
  logger: Logger;
  /** Environment the plugin may read its own settings from (process.env in production). */
  env: Record<string, string | undefined>;
  /** Every template the service offers (built-in and from VITRIN_TEMPLATE_DIRS), for renderers. */
  templates: TemplateRegistry;
};

type Lifecycle = {
  /** Called once before the service takes traffic; throw to refuse to start (with a message naming the setting). */
  init?(): Promise<void>;
  /** Reported by /readyz; a failing plugin makes the service not ready. */
  ready?(): Promise<ReadyReport>;
  /** Called once on shutdown, in reverse order of init. */
  close?(): Promise<void>;
};

export type StoredFile = { body: Blob; size: number; contentType: string };

export type StoragePlugin = Lifecycle & {
  readonly slot: "storage";
  readonly name: string;
  /**
   * Stores bytes under a key (keys are slash-separated, made by the core, never from user input).
   * A Blob body (e.g. `Bun.file(path)`) is streamed, so a rendered video never has to sit in memory whole.
   */
  put(key: string, body: Uint8Array | Blob, contentType: string): Promise<void>;
  get(key: string): Promise<StoredFile | null>;
  /** Removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** A URL a client can GET the key from: under {cdn_url}, or a time-limited presigned link (S3). */
  url(key: string): string;
  /** When present, the service itself serves {cdn_url} through this (local disk). */
  serve?(key: string, request: Request): Promise<Response | null>;
};

export type Box = { x: number; y: number; width: number; height: number };

export type CutoutRequest = {
  /** The source image bytes (JPG, PNG or WebP, already validated). */
  image: Uint8Array;
  /** 1 for the first try; each retry raises it so the plugin can change what it does. */
  attempt: number;
  signal?: AbortSignal;
};

export type Cutout = {
  /** PNG with transparent background, longest side at most 1024 px. */
  png: Uint8Array;
  /** Greyscale PNG mask of the same size (white = product). */
  mask: Uint8Array;
  width: number;
  height: number;
  /** Foreground bounding box within `png`. */
  box: Box;
  /** What this attempt did differently, for the preview (e.g. "threshold 0.4, wider crop"). */
  variant: string;
  /** Where the time went, in whole ms, when the plugin can tell (e.g. decode_ms, inference_ms, postprocess_ms). */
  timings?: Record<string, number>;
};

export type BackgroundRemovalPlugin = Lifecycle & {
  readonly slot: "background-removal";
  readonly name: string;
  remove(request: CutoutRequest): Promise<Cutout>;
};

export type RenderProgress = (percent: number) => void;

export type RenderProduct = {
  id: string;
  name: string;
  description: string | null;
  /** Absolute path of the image to show: the cut-out PNG (transparent background) once dekupe is ready, else the original. */
  imagePath: string;
  /** Absolute path of the greyscale mask PNG (white = product, same size as the cut-out), when there is a cut-out. */
  maskPath: string | null;
  /** True when imagePath has a transparent background. */
  cutout: boolean;
};

export type RenderRequest = {
  /** A scratch folder for this render; the caller removes it afterwards. */
  workDir: string;
  templateId: string;
  product: RenderProduct;
  /** The caller's user_prompt, already validated against the template's schema (defaults not yet applied). */
  prompt: Record<string, unknown>;
  /** BCP 47 language of the video's built-in strings and layout (right-to-left languages mirror it). */
  language: string;
  /** 1 renders at the template's size; tests may pass e.g. 0.25 to render smaller through the same code. */
  scale?: number;
  signal: AbortSignal;
  onProgress: RenderProgress;
};

export type RenderResult = {
  /** H.264 MP4 inside workDir, verified with ffprobe. */
  videoPath: string;
  /** JPEG thumbnail inside workDir. */
  thumbnailPath: string;
  durationSeconds: number;
  width: number;
  height: number;
};

export type RendererPlugin = Lifecycle & {
  readonly slot: "renderer";
  readonly name: string;
  render(request: RenderRequest): Promise<RenderResult>;
};

export type PaymentRequest = {
  topUpId: string;
  accountId: string;
  /** Minor currency units (cents). */
  amount: number;
  /** Lowercase ISO 4217 code. */
  currency: string;
  credits: number;
  /** Where the payer lands after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
  expiresAt: number;
};

/** What a provider says about a payment, in the core's words. */
export type PaymentOutcome = "paid" | "pending" | "failed" | "expired";

export type PaymentNotice = {
  /** The provider's event id: a notice seen before is acknowledged and ignored. */
  eventId: string;
  type: string;
  topUpId: string | null;
  outcome: PaymentOutcome | null;
};

export type PaymentPlugin = Lifecycle & {
  readonly slot: "payment";
  readonly name: string;
  /** Starts a payment and returns where the payer completes it. */
  createPayment(request: PaymentRequest): Promise<{ paymentUrl: string; providerReference?: string }>;
  /**
   * Verifies and reads a notification the provider POSTed to /v1/payments/<name>/webhook (raw body, all headers).
   * Throw `PaymentSignatureError` when it is not authentic; return null for events that concern no top-up.
   */
  parseWebhook?(rawBody: string, headers: Headers): Promise<PaymentNotice | null>;
  /** Asks the provider how a payment stands (used when the payer returns to the success page). */
  lookupPayment?(providerReference: string): Promise<PaymentOutcome>;
};

export class PaymentSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PaymentSignatureError";
  }
}

export type SlotMap = {
  storage: StoragePlugin;
  "background-removal": BackgroundRemovalPlugin;
  renderer: RendererPlugin;
  payment: PaymentPlugin;
};
export type Slot = keyof SlotMap;

export type PluginDefinition<S extends Slot = Slot> = {
  slot: S;
  name: string;
  description: string;
  create(ctx: PluginContext): SlotMap[S] | Promise<SlotMap[S]>;
};

export function definePlugin<S extends Slot>(def: PluginDefinition<S>): PluginDefinition<S> {
  return def;
}

export type Plugins = {
  storage: StoragePlugin;
  backgroundRemoval: BackgroundRemovalPlugin;
  renderer: RendererPlugin;
  payment: PaymentPlugin;
  /** Every plugin started, in init order. */
  all: { slot: Slot; name: string; instance: Lifecycle }[];
  readiness(): Promise<Record<string, ReadyReport>>;
  close(): Promise<void>;
};

export class PluginRegistry {
  private defs = new Map<string, PluginDefinition>();

  add(def: PluginDefinition): this {
    const id = `${def.slot}:${def.name}`;
    if (this.defs.has(id)) throw new Error(`plugin ${def.slot}-${def.name} is registered twice`);
    this.defs.set(id, def);
    return this;
  }

  names(slot: Slot): string[] {
    return [...this.defs.values()].filter((d) => d.slot === slot).map((d) => d.name);
  }

  find<S extends Slot>(slot: S, name: string): PluginDefinition<S> {
    const def = this.defs.get(`${slot}:${name}`);
    if (!def) {
      throw new Error(`unknown ${slot} plugin "${name}"; available: ${this.names(slot).join(", ") || "none"}`);
    }
    return def as unknown as PluginDefinition<S>;
  }

  /** Creates and initialises the configured plugin of each slot; on a failure, closes what already started. */
  async start(ctx: PluginContext): Promise<Plugins> {
    const started: { slot: Slot; name: string; instance: Lifecycle }[] = [];
    const close = async () => {
      for (const p of [...started].reverse()) {
        try {
          await p.instance.close?.();
        } catch (e) {
          ctx.logger.error("plugin close failed", { plugin: `${p.slot}-${p.name}`, err: e });
        }
      }
      started.length = 0;
    };
    const boot = async <S extends Slot>(slot: S, name: string, setting: string): Promise<SlotMap[S]> => {
      let def: PluginDefinition<S>;
      try {
        def = this.find(slot, name);
      } catch (e) {
        throw new Error(`${setting}: ${(e as Error).message}`);
      }
      const instance = await def.create({ ...ctx, logger: ctx.logger.child({ plugin: `${slot}-${name}` }) });
      await instance.init?.();
      started.push({ slot, name, instance });
      return instance;
    };
    try {
      const storage = await boot("storage", ctx.config.storage, "VITRIN_STORAGE");
      const backgroundRemoval = await boot("background-removal", ctx.config.backgroundRemoval, "VITRIN_BACKGROUND_REMOVAL");
      const renderer = await boot("renderer", ctx.config.renderer, "VITRIN_RENDERER");
      const payment = await boot("payment", ctx.config.payment, "VITRIN_PAYMENT");
      return {
        storage,
        backgroundRemoval,
        renderer,
        payment,
        all: started,
        async readiness() {
          const out: Record<string, ReadyReport> = {};
          for (const p of started) {
            try {
              out[`${p.slot}-${p.name}`] = p.instance.ready ? await p.instance.ready() : { ok: true };
            } catch (e) {
              out[`${p.slot}-${p.name}`] = { ok: false, detail: (e as Error).message };
            }
          }
          return out;
        },
        close,
      };
    } catch (e) {
      await close();
      throw e;
    }
  }
}
