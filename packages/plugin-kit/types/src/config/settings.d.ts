import { type Setting } from "./parse";
/** The core's settings, read once at start. */
export type CoreConfig = {
    port: number;
    host: string;
    dataDir: string;
    publicUrl: string;
    cdnUrl: string;
    adminToken: string | null;
    databaseUrl: string;
    databasePool: number;
    databaseBusyTimeoutMs: number;
    idempotencyLeaseMs: number;
    allowPrivateNetworks: boolean;
    storage: string;
    backgroundRemoval: string;
    renderer: string;
    payment: string;
    logLevel: "debug" | "info" | "warn" | "error" | "silent";
    rateLimitPerMinute: number;
    rateLimitBurst: number;
    authFailuresPerMinute: number;
    trustedProxies: string[];
    fetchTimeoutMs: number;
    maxBodyBytes: number;
    shutdownTimeoutMs: number;
    webhookTimeoutMs: number;
    webhookAllowHosts: string[];
    pollMs: number;
    jobLeaseMs: number | null;
    idleTrimMs: number;
    currencies: string[];
    creditRates: Record<string, number>;
    topUpTtlMs: number;
    topUpMax: number;
    lowBalanceThreshold: number;
    renderTimeoutMs: number;
    dekupeWaitMs: number;
    videoRetentionDays: number;
    previewCacheBytes: number;
    previewsPerMinute: number;
    templateDirs: string[];
    musicDirs: string[];
    pluginDirs: string[];
    nativeDir: string;
    skipSystemDeps: boolean;
};
/** A core setting: read in list order, so a default may follow the settings above it. */
export type CoreSetting = Setting<CoreConfig[keyof CoreConfig], Partial<CoreConfig>> & {
    key: keyof CoreConfig;
};
/** True inside a `bun build --compile` executable (its modules live under the embedded /$bunfs/ root). */
export declare function isCompiled(): boolean;
export declare const coreSettings: CoreSetting[];
