/** A per-user cache folder: $XDG_CACHE_HOME/vitrin/native, ~/.cache/vitrin/native, or one under the temp folder. */
export declare function defaultNativeDir(env?: Record<string, string | undefined>): string;
