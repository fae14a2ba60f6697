/** Every error of the import, with line and column where Bun gives them. */
export declare function describeImportError(e: unknown): string;
