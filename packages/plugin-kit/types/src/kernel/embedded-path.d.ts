export declare function isEmbeddedPath(path: string): boolean;
