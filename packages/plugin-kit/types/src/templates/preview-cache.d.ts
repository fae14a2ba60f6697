/** The preview cache's default bound: the built-in templates in every built-in language (~42 × 300 KB) fit twice. */
export declare const DEFAULT_PREVIEW_CACHE_BYTES: number;
export declare class PreviewCache {
    readonly maxBytes: number;
    private readonly entries;
    /** Previews being made: everyone asking for the same key at once waits for one render. */
    private readonly pending;
    private total;
    constructor(maxBytes?: number);
    /** Bytes held now (never above maxBytes). */
    get bytes(): number;
    get size(): number;
    has(key: string): boolean;
    /** The cached bytes, marked as the most recently used; undefined when absent. */
    get(key: string): Uint8Array | undefined;
    /** Keeps `value` as the most recently used entry, dropping the least recently used ones until the total fits. */
    set(key: string, value: Uint8Array): void;
    delete(key: string): void;
    /** The cached value, else the one being made, else make() it once; a failed make() is not remembered. */
    getOrMake(key: string, make: () => Promise<Uint8Array>): Promise<Uint8Array>;
}
