export type IdPrefix = "acct" | "tok" | "prod" | "vid" | "txn" | "top" | "msg" | "job" | "att" | "req" | "file" | "we" | "llk";
export declare function newId(prefix: IdPrefix): string;
/** ISO 8601 UTC with `Z` and milliseconds, or null. */
export declare function iso(ms: number | null | undefined): string | null;
