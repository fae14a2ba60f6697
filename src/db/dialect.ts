// The SQL that differs between SQLite and PostgreSQL, one capability per concern, so domain code asks for "a column in a
// list given as one parameter" and never tests the dialect itself. Everything else is drizzle's portable builder.
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Dialect, Orm } from "./types";
import { pgClientOf } from "./postgres";

export type IdList = {
  /** `column IN (the list)`, the list bound once as the placeholder `name`: one statement text for any length. */
  contains(column: SQLWrapper, name: string): SQL;
  /** The placeholder's value for `ids`. */
  bind(ids: readonly string[]): unknown;
};

const idLists: Record<Dialect, IdList> = {
  // SQLite has no array parameters; a JSON text walked by json_each keeps the text fixed.
  sqlite: {
    contains: (column, name) => sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`,
    bind: (ids) => JSON.stringify(ids),
  },
  postgres: {
    contains: (column, name) => sql`${column} = ANY(${sql.placeholder(name)}::text[])`,
    bind: (ids) => [...ids],
  },
};

export function idList(dialect: Dialect): IdList {
  return idLists[dialect];
}

/** The bun:sqlite connection behind a drizzle handle (drizzle's `$client`, missing from its declared type). */
export function sqliteClientOf(orm: unknown): Database {
  return (orm as { $client: Database }).$client;
}

// bun:sqlite's own query() cache stops after 20 texts per connection (every module shares it), so statements run
// hundreds of times a second are kept here, per connection; the set of texts is fixed and small.
const compiledSqlite = new WeakMap<Database, Map<string, Statement>>();

/** `text` compiled on `client`, once per connection. */
export function compiledStatement(client: Database, text: string): Statement {
  let byText = compiledSqlite.get(client);
  if (!byText) compiledSqlite.set(client, (byText = new Map()));
  let s = byText.get(text);
  if (!s) byText.set(text, (s = client.prepare(text)));
  return s;
}

/**
 * A write that takes many rows of `width` values at once, for hot paths where one statement per batch beats one per
 * row. SQLite binds the rows as `VALUES (?, …), …`, the text built by `sqlite` from that list; PostgreSQL takes them
 * as one jsonb parameter ($1, an array of arrays).
 */
export type RowsStatement = { width: number; sqlite: (values: string) => string; postgres: string };

// SQLite statements come in these row counts, so a batch of any size runs through a handful of fixed texts. Bound
// values beat rows passed as JSON text: extracting each field again with ->> cost more than the writes themselves.
const CHUNKS = [64, 16, 4, 1];
const texts = new WeakMap<RowsStatement, Map<number, string>>();

function sqliteText(statement: RowsStatement, rows: number): string {
  let bySize = texts.get(statement);
  if (!bySize) texts.set(statement, (bySize = new Map()));
  let text = bySize.get(rows);
  if (!text) {
    const row = `(${Array(statement.width).fill("?").join(", ")})`;
    bySize.set(rows, (text = statement.sqlite(Array(rows).fill(row).join(", "))));
  }
  return text;
}

/** Runs `statement` on `ex` (a transaction handle) for every row of `rows`. */
export async function runRows(ex: Orm, dialect: Dialect, statement: RowsStatement, rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  if (dialect === "postgres") {
    await pgClientOf(ex).unsafe(statement.postgres, [rows]);
    return;
  }
  const client = sqliteClientOf(ex);
  let at = 0;
  for (const size of CHUNKS) {
    for (; rows.length - at >= size; at += size) {
      const values: SQLQueryBindings[] = [];
      for (let i = at; i < at + size; i++) for (const v of rows[i]!) values.push(v as SQLQueryBindings);
      compiledStatement(client, sqliteText(statement, size)).run(...values);
    }
  }
}

/**
 * A read on a hot path, in SQL both dialects run, with PostgreSQL's positional parameters `$1`, `$2`, … (SQLite gets
 * them as `?1`, `?2`, …), run on the driver and returned as arrays in select order: drizzle's per-row mapping cost
 * more than the query. Integers come back as numbers, or as strings from PostgreSQL's bigint columns.
 */
export async function queryValues(ex: Orm, dialect: Dialect, text: string, params: SQLQueryBindings[]): Promise<unknown[][]> {
  if (dialect === "postgres") return (await pgClientOf(ex).unsafe(text, params).values()) as unknown[][];
  const client = sqliteClientOf(ex);
  return compiledStatement(client, sqliteParameters(text)).values(...params) as unknown[][];
}

const sqliteTexts = new Map<string, string>();
function sqliteParameters(text: string): string {
  let out = sqliteTexts.get(text);
  if (out === undefined) sqliteTexts.set(text, (out = text.replace(/\$(\d+)/g, "?$1")));
  return out;
}
