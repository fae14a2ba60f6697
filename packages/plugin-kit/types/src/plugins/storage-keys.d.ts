/** True for a key the core could have made: slash-separated plain names, no empty, `.` or `..` parts. */
export declare function isSafeKey(key: string): boolean;
export declare function contentTypeOf(key: string): string;
/** The folder the local storage keeps its files in, each at its key: `<data dir>/files`. */
export declare function localFilesDir(dataDir: string): string;
/** The name the local storage writes a file under before renaming it to its key, so no reader sees half a file. */
export declare function partialFileName(path: string, writer: number): string;
/** True for a file the local storage is still writing (see partialFileName). */
export declare function isPartialFile(path: string): boolean;
