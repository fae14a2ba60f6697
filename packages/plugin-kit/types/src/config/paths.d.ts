/**
 * A per-user cache folder: $XDG_CACHE_HOME/vitrin/native, ~/.cache/vitrin/native (when the home folder exists), or one
 * under the temp folder, which is checked to be this user's alone (the native libraries in it are loaded into the process).
 */
export declare function defaultNativeDir(env?: Record<string, string | undefined>): string;
