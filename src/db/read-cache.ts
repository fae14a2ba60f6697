// Memoised reads on SQLite (Db.cached), kept until anything commits to the database file.

/**
 * Read results keyed by the reader connection's data_version, which moves whenever another connection (our own
 * writer or another process) commits. Reading it costs a WAL check, so it is read once per event-loop turn;
 * our own commits clear the cache at once, so a client always reads its own writes.
 */
export class ReadCache {
  private version = -1;
  /** Moves on every clear, so a read that started before a commit cannot store its older result after it. */
  private generation = 0;
  private checked = false;
  private entries = new Map<string, unknown>();
  private readonly expire = () => {
    this.checked = false;
  };
  constructor(
    private readonly versionQuery: { values(): unknown[][] } | null,
    private readonly maxEntries = 10_000,
  ) {}

  invalidate() {
    this.entries.clear();
    this.generation++;
    this.checked = false;
  }

  get<T>(key: string, compute: () => Promise<T> | T): Promise<T> | T {
    if (!this.versionQuery) return compute();
    if (!this.checked) {
      const version = this.versionQuery.values()[0][0] as number;
      if (version !== this.version) {
        this.entries.clear();
        this.generation++;
        this.version = version;
      }
      this.checked = true;
      setImmediate(this.expire);
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const generation = this.generation;
    const value = compute();
    // A result computed now is at least as new as the current generation, so storing it there is never stale. The
    // promise itself is kept while it runs, so a burst of misses for one key shares one read.
    if (value instanceof Promise) {
      const settled = value.then(
        (v) => {
          if (this.generation === generation && this.entries.get(key) === settled) this.store(key, v);
          return v;
        },
        (e) => {
          if (this.entries.get(key) === settled) this.entries.delete(key);
          throw e;
        },
      );
      this.store(key, settled);
      return settled;
    }
    this.store(key, value);
    return value;
  }

  private store(key: string, value: unknown) {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
}
