export type Metadata = Record<string, string>;
/** What a request may send: string values, "" or null to remove a key; null for the whole object clears it. */
export type MetadataInput = Record<string, unknown> | null;
export declare const METADATA_MAX_KEYS = 50;
export declare const METADATA_MAX_KEY_LENGTH = 40;
export declare const METADATA_MAX_VALUE_LENGTH = 500;
/**
 * `input` applied to `current` (an empty object for a new record): each key checked, "" and null removing their
 * key, null for the whole object removing every key. Every breach is a 422 naming `metadata.<key>`.
 */
export declare function mergeMetadata(current: Metadata, input: MetadataInput | undefined): Metadata;
/** A stored metadata column as the JSON object the API shows. */
export declare function parseMetadata(text: string | null | undefined): Metadata;
