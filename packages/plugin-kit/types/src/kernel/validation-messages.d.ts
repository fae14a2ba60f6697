/** TypeBox's message for one failure, in plain words; a message it does not know is passed on unchanged. */
export declare function plainMessage(message: string, schema: unknown, field: string): string;
