// The SQL that differs between SQLite and PostgreSQL, one capability per concern, so domain code asks for "a column in a
// list given as one parameter" and never tests the dialect itself. Everything else is drizzle's portable builder.
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Dialect, Orm } from "./index";
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

/** Rows for a statement that takes them as one JSON parameter: text for SQLite's json_each, a value Bun sends as jsonb. */
export function jsonRows(dialect: Dialect, rows: unknown[][]): unknown {
  return dialect === "sqlite" ? JSON.stringify(rows) : rows;
}

/** One statement in each dialect's words, for hot paths where one fixed text per batch beats a statement per row. */
export type RawStatement = Record<Dialect, string>;

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
 * Runs `statement` on `ex` (a transaction or db.read) with positional parameters (?1… on SQLite, $1… on PostgreSQL)
 * and returns its rows. The SQLite text is compiled once per connection; PostgreSQL prepares it on first use.
 */
export async function runRaw<T = unknown>(ex: Orm, dialect: Dialect, statement: RawStatement, params: unknown[]): Promise<T[]> {
  const text = statement[dialect];
  if (dialect === "postgres") return (await pgClientOf(ex).unsafe(text, params)) as T[];
  const client = (ex as unknown as { $client: Database }).$client;
  return compiledStatement(client, text).all(...(params as SQLQueryBindings[])) as T[];
}
