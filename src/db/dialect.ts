// The SQL that differs between SQLite and PostgreSQL, one capability per concern, so domain code asks for "a column in a
// list given as one parameter" and never tests the dialect itself. Everything else is drizzle's portable builder.
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Dialect } from "./index";

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
