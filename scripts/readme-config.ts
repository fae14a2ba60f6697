// Rewrites the README's configuration table from src/config (run after adding a setting: bun run scripts/readme-config.ts).
import { configTable } from "../src/config";

const path = new URL("../README.md", import.meta.url).pathname;
const readme = await Bun.file(path).text();
const lines = readme.split("\n");
const start = lines.findIndex((l) => l.startsWith("| Variable | Default | Meaning |"));
if (start < 0) throw new Error("README has no configuration table");
let end = start;
while (end < lines.length && lines[end].startsWith("|")) end++;
lines.splice(start, end - start, ...configTable().split("\n"));
await Bun.write(path, lines.join("\n"));
console.log(`README configuration table: ${end - start - 2} → ${configTable().split("\n").length - 2} settings`);
