// Rewrites the configuration table of docs/operations.md from the core's and the built-in plugins' settings (run after
// adding or changing a setting: bun run scripts/readme-config.ts). The name stays from when the table was in the README.
import { GENERATED_TABLES, writeTable } from "./docs-tables";

await writeTable(GENERATED_TABLES.find((t) => t.file === "docs/operations.md")!);
