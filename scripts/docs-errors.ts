// Rewrites the error table of docs/api.md from the error catalogue, src/kernel/errors.ts (run after adding or changing
// an error: bun run scripts/docs-errors.ts). Each entry's doc comment is its "When" column.
import { GENERATED_TABLES, writeTable } from "./docs-tables";

await writeTable(GENERATED_TABLES.find((t) => t.file === "docs/api.md")!);
