import type { Config } from "../config";
import type { Logger } from "../kernel";
import type { Aspect, TemplateRegistry } from "../templates";
import type { PluginCommand } from "./commands";
import type { PluginSettings } from "./settings";
export type ReadyReport = {
    ok: boolean;
    detail?: string;
};
export type PluginContext<T = Record<string, unknown>> = {
    /** The core's settings (data dir, public and CDN URLs, limits). */
    config: Config;
    logger: Logger;
    /** This plugin's declared settings (`settings` of its definition), read and checked at start. */
    settings: T;
    /**
     * The raw environment (process.env in production). Declared settings are better: they are checked at start, named
     * in errors and listed in the configuration table; this stays for folder plugins written before them.
     */
    env: Record<string, string | undefined>;
    /** Every template the service offers (built-in and from VITRIN_TEMPLATE_DIRS), for renderers. */
    templates: TemplateRegistry;
    /**
     * Whether this instance runs jobs: false for an API-only one (`serve --no-worker`), which never cuts out or renders a
     * video, so a plugin whose work happens only in jobs (background removal) need not prepare for it. Absent means true.
     */
    runsJobs?: boolean;
};
export type Lifecycle = {
    /** Called once before the service takes traffic; throw to refuse to start (with a message naming the setting). */
    init?(): Promise<void>;
    /** Reported by /readyz; a failing plugin makes the service not ready. */
    ready?(): Promise<ReadyReport>;
    /** Called once on shutdown, in reverse order of init. */
    close?(): Promise<void>;
};
export type StoredFile = {
    body: Blob;
    size: number;
    contentType: string;
};
export type UrlOptions = {
    /**
     * The name a client should save the file under (the core's choice, not yet made safe): the link's answer carries
     * `Content-Disposition: attachment` with `attachment(downloadFileName(download, key))`. A link vitrin serves asks
     * for it with `?download=` (`servedUrl`); S3 signs it into the link. Optional to honour: a storage that cannot name
     * a download ignores it and gives its usual link.
     */
    download?: string;
};
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
    /**
     * A URL a client can GET the key from: under {cdn_url}, or a time-limited presigned link (S3). With `download`, a
     * link whose answer makes it a download under that name, when the storage can name one; else its usual link.
     */
    url(key: string, options?: UrlOptions): string;
    /**
     * When present, the service itself serves {cdn_url} through this (local disk): GET and HEAD (HEAD with the real
     * Content-Length and no body), ETag / If-None-Match, and one byte range (206 with Content-Range, 416 past the end).
     * Storages without it hand out URLs their own server answers (S3: the bucket, which does the same).
     */
    serve?(key: string, request: Request): Promise<Response | null>;
};
export type Box = {
    x: number;
    y: number;
    width: number;
    height: number;
};
export type Point = {
    x: number;
    y: number;
};
/**
 * Which object the account wants, in the upright photo's pixels (already checked to lie inside it): a point on it or a
 * box around it, and points that must stay outside the cut-out. A plugin that cannot steer its cut-out ignores it.
 */
export type CutoutHint = {
    point?: Point;
    box?: Box;
    exclude?: Point[];
};
export type CutoutRequest = {
    /** The source image bytes (JPG, PNG or WebP, already validated). */
    image: Uint8Array;
    /** 1 for the first try; each retry raises it so the plugin can change what it does. */
    attempt: number;
    /** When present, cut out the object under the hint even if the plugin would pick another. */
    hint?: CutoutHint;
    signal?: AbortSignal;
};
export type Cutout = {
    /** PNG with transparent background, longest side at most 1024 px. */
    png: Uint8Array;
    /** Greyscale PNG mask of the same size (white = product). */
    mask: Uint8Array;
    /**
     * The mask's pixels, one byte each, row by row (width × height), when the plugin has them at hand: the host then
     * reads the warnings from them instead of decoding `mask` again. Must equal the decoded mask.
     */
    alpha?: Uint8Array;
    width: number;
    height: number;
    /** Foreground bounding box within `png`. */
    box: Box;
    /** Where `png` sits in the upright source photo, in the photo's pixels (absent: `png` is the whole photo, scaled). */
    sourceBox?: Box;
    /** What this attempt did differently, for the preview (e.g. "threshold 0.4, wider crop"). */
    variant: string;
    /** Where the time went, in whole ms, when the plugin can tell (e.g. decode_ms, inference_ms, postprocess_ms). */
    timings?: Record<string, number>;
};
export type BackgroundRemovalPlugin = Lifecycle & {
    readonly slot: "background-removal";
    readonly name: string;
    /** Throws `NoSubjectError` when the photo shows nothing to cut out (or nothing under the hint); any other error is a fault. */
    remove(request: CutoutRequest): Promise<Cutout>;
};
/**
 * The photo holds nothing the plugin can cut out, or nothing under the hint: the attempt fails with error code
 * `no_subject` (which tells the account to try a hint or another photo) instead of `removal_failed`. The core reads
 * the `code`, not the class, so a plugin built against another copy of the kit is understood the same.
 */
export declare class NoSubjectError extends Error {
    readonly code = "no_subject";
    constructor(message: string);
}
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
    /** The format: 9:16 1080×1920, 4:5 1080×1350, 1:1 1080×1080 or 16:9 1920×1080 (default: the template's own). */
    aspect?: Aspect;
    /** The account's brand logo (PNG, WebP or JPG inside workDir), shown small in a corner inside the safe area. */
    logoPath?: string;
    /** The account's brand font, one of SHIPPED_FONTS: the template's headline text takes it. */
    font?: string;
    /** 1 renders at the template's size; tests may pass e.g. 0.25 to render smaller through the same code. */
    scale?: number;
    /** The music track to lay under the video; absent or null makes a video without an audio stream. */
    music?: RenderMusic | null;
    signal: AbortSignal;
    onProgress: RenderProgress;
};
/** A music track for a render: its audio file (maybe embedded in a binary), tempo and length. */
export type RenderMusic = {
    file: string;
    bpm: number;
    seconds: number;
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
export type PreviewRequest = {
    /** A template of the registry the renderer was given (the caller has checked that it exists). */
    templateId: string;
    /** BCP 47 language of the product's words and of the template's strings (default en). */
    language?: string;
    /** The format (default: the template's own). */
    aspect?: Aspect;
    /** Output size factor (default 0.5: half the template's size). */
    scale?: number;
    /** The caller's own product (POST /v1/videos/preview); absent, the renderer's sample product is shown. */
    product?: RenderProduct;
    /** The caller's user_prompt, validated (with the brand's colours), for the caller's product; absent, sample copy. */
    prompt?: Record<string, unknown>;
    /** The account's brand logo and font, as for a render. */
    logoPath?: string;
    font?: string;
};
/** What a layout check reads: the render's inputs without its output, progress or music (no encoder runs). */
export type LayoutCheckRequest = Pick<RenderRequest, "workDir" | "templateId" | "product" | "prompt" | "language" | "aspect" | "logoPath" | "font" | "scale">;
/**
 * Copy that cannot be laid out: `field` names what the client sent and can change (`user_prompt.headline`, or
 * `product.name` when the headline is the product's name), `message` what is wrong (too long, outside the safe area,
 * overlapping the product…).
 */
export type LayoutProblem = {
    field: string;
    message: string;
};
export type RendererPlugin = Lifecycle & {
    readonly slot: "renderer";
    readonly name: string;
    render(request: RenderRequest): Promise<RenderResult>;
    /**
     * A PNG of the template's poster frame: made with a sample product for GET /v1/templates/:id/preview (the core
     * caches it), or with the caller's product, copy and brand for POST /v1/videos/preview. Optional: without it, the
     * routes answer that this renderer makes no previews.
     */
    preview?(request: PreviewRequest): Promise<Uint8Array>;
    /**
     * The layout problems of a render, found without encoding (text measured, boxes placed); empty when it can be
     * made. Optional: the core calls it before charging for a video or an estimate, and answers 422 naming each
     * field; without it, every request is taken as laid out.
     */
    check?(request: LayoutCheckRequest): Promise<LayoutProblem[]>;
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
    createPayment(request: PaymentRequest): Promise<{
        paymentUrl: string;
        providerReference?: string;
    }>;
    /**
     * Verifies and reads a notification the provider POSTed to /v1/payments/<name>/webhook (raw body, all headers).
     * Throw `PaymentSignatureError` when it is not authentic; return null for events that concern no top-up.
     */
    parseWebhook?(rawBody: string, headers: Headers): Promise<PaymentNotice | null>;
    /** Asks the provider how a payment stands (used when the payer returns to the success page). */
    lookupPayment?(providerReference: string): Promise<PaymentOutcome>;
    /**
     * True when an operator confirms this provider's top-ups by hand, as the built-in `manual`'s: the money reaches the
     * operator outside any API (a bank transfer, cash), and `vitrin topups complete` or POST
     * /v1/admin/top-ups/:id/complete books it. Left out, only the provider's own notice or lookup can.
     */
    readonly operatorConfirms?: boolean;
    /**
     * For a provider whose payer page vitrin serves (`/pay/manual/:id`): how to pay, in the operator's words (bank
     * details, a contact), shown on that page under the amount.
     */
    readonly payerInstructions?: string | null;
};
export declare class PaymentSignatureError extends Error {
    constructor(message: string);
}
export type SlotMap = {
    storage: StoragePlugin;
    "background-removal": BackgroundRemovalPlugin;
    renderer: RendererPlugin;
    payment: PaymentPlugin;
};
export type Slot = keyof SlotMap;
/** The methods each slot's implementation must have (the optional ones are left out): checked when a plugin starts. */
export declare const REQUIRED_METHODS: {
    readonly [S in Slot]: readonly (keyof SlotMap[S] & string)[];
};
export type PluginDefinition<S extends Slot = Slot, T = any> = {
    slot: S;
    name: string;
    description: string;
    /**
     * The settings this plugin reads, by the name its code uses: each with its VITRIN_* variable, default, meaning and
     * parser. They reach `create` as `ctx.settings`, and the configuration table lists them.
     */
    settings?: PluginSettings<T>;
    /** Commands this plugin adds to the `vitrin` CLI (e.g. `vitrin models install`). */
    commands?: PluginCommand<T>[];
    create(ctx: PluginContext<T>): SlotMap[S] | Promise<SlotMap[S]>;
};
export declare function definePlugin<S extends Slot, T = Record<string, never>>(def: PluginDefinition<S, T>): PluginDefinition<S, T>;
