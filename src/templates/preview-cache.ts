// A byte-bounded least-recently-used cache for template previews, which callers key by template and language.
//
// A Map keeps insertion order, so re-inserting an entry on every read makes its first key the least recently used
// one: that is all an LRU needs. (lru-cache would do the same with maxSize and sizeCalculation; one value type with
// its own byte length and one in-flight table did not justify a dependency.)

/** The preview cache's default bound: the built-in templates in every built-in language (~42 × 300 KB) fit twice. */
export const DEFAULT_PREVIEW_CACHE_BYTES = 32 * 1024 * 1024;

export class PreviewCache {
  private readonly entries = new Map<string, Uint8Array>();
  /** Previews being made: everyone asking for the same key at once waits for one render. */
  private readonly pending = new Map<string, Promise<Uint8Array>>();
  private total = 0;

  constructor(readonly maxBytes: number = DEFAULT_PREVIEW_CACHE_BYTES) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) throw new Error("the preview cache bound must be a whole number of bytes ≥ 0");
  }

  /** Bytes held now (never above maxBytes). */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The cached bytes, marked as the most recently used; undefined when absent. */
  get(key: string): Uint8Array | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` as the most recently used entry, dropping the least recently used ones until the total fits. */
  set(key: string, value: Uint8Array): void {
    this.delete(key);
    // An entry larger than the whole bound would only flush everything else and then be dropped itself.
    if (value.byteLength > this.maxBytes) return;
    this.entries.set(key, value);
    this.total += value.byteLength;
    for (const [oldest, bytes] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= bytes.byteLength;
    }
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.total -= value.byteLength;
  }

  /** The cached value, else the one being made, else make() it once; a failed make() is not remembered. */
  async getOrMake(key: string, make: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    let inFlight = this.pending.get(key);
    if (!inFlight) {
      inFlight = make().then(
        (value) => {
          this.pending.delete(key);
          this.set(key, value);
          return value;
        },
        (e: unknown) => {
          this.pending.delete(key);
          throw e;
        },
      );
      this.pending.set(key, inFlight);
    }
    return inFlight;
  }
}
