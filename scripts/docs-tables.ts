// The generated tables of docs/ (settings in operations.md, errors in api.md): how each is made from the code, and how a
// table is swapped into its page. The scripts that write them and test/docs.test.ts, which keeps them equal, share this.
import { configTable } from "../src/config";
import { errors } from "../src/kernel";
import { builtinPlugins } from "../plugins";

const ROOT = new URL("..", import.meta.url).pathname;

export type GeneratedTable = { file: string; header: string; make: () => Promise<string> };

/** The configuration table: the core's settings, then every built-in plugin's declared settings. */
export function configurationTable(): string {
  return configTable(builtinPlugins().declaredSettings());
}

/** Doc comments of the catalogue's entries, by name: they say when each error is answered. */
async function catalogueComments(): Promise<Map<string, string>> {
  const source = await Bun.file(`${ROOT}src/kernel/errors.ts`).text();
  const comments = new Map<string, string>();
  for (const m of source.matchAll(/\/\*\*\s*([\s\S]*?)\s*\*\/\s*\n\s*(\w+):/g)) {
    comments.set(m[2], m[1].replace(/\s*\n\s*\*\s*/g, " "));
  }
  return comments;
}

/**
 * One row per entry of the error catalogue, by status: the status, `error`, `code`, when (the entry's doc comment), the extra
 * fields of the body and the headers. Each entry is called with empty arrays for its required arguments: the values
 * are not shown, only which fields and headers the entry always carries.
 */
export async function errorTable(): Promise<string> {
  const comments = await catalogueComments();
  const rows = Object.entries(errors).map(([name, make]) => {
    const when = comments.get(name);
    if (!when) throw new Error(`src/kernel/errors.ts: errors.${name} needs a doc comment saying when it is answered`);
    type Made = InstanceType<typeof Error> & { status: number; error: string; code: string; extra: object; headers: object };
    const e = (make as (...args: unknown[]) => Made)(
      ...Array.from({ length: make.length }, () => []),
    );
    const code = (names: string[]) => names.map((n) => `\`${n}\``).join(", ");
    const line = `| ${e.status} | \`${e.error}\` | \`${e.code}\` | ${when} | ${code(Object.keys(e.extra))} | ${code(Object.keys(e.headers))} |`;
    return { status: e.status, line };
  });
  rows.sort((a, b) => a.status - b.status);
  const header = "| Status | `error` | `code` | When | Extra fields | Headers |";
  return [header, "|---|---|---|---|---|---|", ...rows.map((r) => r.line)].join("\n");
}

/** Every generated table: the page it lives in and the header line it starts with. */
export const GENERATED_TABLES: GeneratedTable[] = [
  { file: "docs/operations.md", header: "| Variable | Default | Meaning |", make: async () => configurationTable() },
  { file: "docs/api.md", header: "| Status | `error` | `code` | When |", make: errorTable },
];

/** Where the table that starts at `header` sits among the page's lines: [first, past the last]; null when absent. */
function tableRange(lines: string[], header: string): [number, number] | null {
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) return null;
  let end = start;
  while (end < lines.length && lines[end].startsWith("|")) end++;
  return [start, end];
}

/** The table as it stands in the page (from its header to the last row), or null when the page has none. */
export function tableIn(page: string, header: string): string | null {
  const lines = page.split("\n");
  const range = tableRange(lines, header);
  return range ? lines.slice(...range).join("\n") : null;
}

/** Rewrites one generated table of its page from the code; throws when the page has lost the table. */
export async function writeTable(table: GeneratedTable): Promise<void> {
  const path = `${ROOT}${table.file}`;
  const lines = (await Bun.file(path).text()).split("\n");
  const range = tableRange(lines, table.header);
  if (!range) throw new Error(`${table.file} has no table starting with "${table.header}"`);
  const rows = (await table.make()).split("\n");
  lines.splice(range[0], range[1] - range[0], ...rows);
  await Bun.write(path, lines.join("\n"));
  console.log(`${table.file}: ${range[1] - range[0] - 2} → ${rows.length - 2} rows`);
}
