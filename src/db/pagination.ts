// Cursor pagination shared by every list: newest first by (created_at, id), so rows inserted while a client pages
// through never cause duplicates or gaps (new rows land before the cursor, never after it).
// Each list prepares its statements once: building a drizzle query costs several times more than running it.
import { and, asc, desc, eq, gte, lte, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Orm } from "./types";
import { errors } from "../kernel";

export type PageQuery = { limit?: number | string; starting_after?: string; ending_before?: string };
export type Page<T> = { data: T[]; has_more: boolean };

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function parseLimit(raw: number | string | undefined, bounds = { fallback: DEFAULT_LIMIT, max: MAX_LIMIT }): number {
  if (raw === undefined) return bounds.fallback;
  const n = typeof raw === "number" ? raw : /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > bounds.max) throw errors.invalidField("limit", `must be a whole number from 1 to ${bounds.max}`);
  return n;
}

type Keyed = { id: SQLiteColumn; createdAt: SQLiteColumn };

export type PagerOptions = {
  /**
   * How many of the leading scope columns a cursor id is looked up in (default: all). A list filtered on a column that
   * changes (a video's status) looks its cursor up in the account alone, so a row that has since left the filter
   * still marks the place.
   */
  cursorScope?: number;
  /** Bounds every page by `created_at` from `range.from` to `range.to` (both inclusive, ms), given per call. */
  createdRange?: boolean;
  /** A further condition on every page, its placeholders' values given per call (`page(…, filterValues)`). */
  filter?: SQL;
};

/** The inclusive `created_at` bounds of a page (ms epoch); the widest when a list is not filtered by time. */
export type CreatedRange = { from: number; to: number };
export const ALL_TIME: CreatedRange = { from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER };

/**
 * `(a, b) > (x, y)` (or `<`): a keyset cursor as one row-value comparison, which SQLite and PostgreSQL both turn into
 * the start of an index range. Spelled `a > x OR (a = x AND b > y)`, SQLite bounds the range by `a >= x` only, and then
 * walks every row that shares `a` with the cursor: a burst of rows made in one millisecond read quadratically.
 */
export function rowCompare(columns: [SQLWrapper, SQLWrapper], op: ">" | "<", values: [SQLWrapper, SQLWrapper]): SQL {
  return sql`(${columns[0]}, ${columns[1]}) ${sql.raw(op)} (${values[0]}, ${values[1]})`;
}

/**
 * A prepared pager over `table`, scoped by equality on `scope` columns (e.g. the account id), whose values are
 * given per call. A cursor id outside the scope is a 422, never a silent empty page.
 */
export function createPager<Row extends { id: string; createdAt: number }>(
  orm: Orm,
  table: SQLiteTable & Keyed,
  scope: SQLiteColumn[],
  noun: string,
  options: PagerOptions = {},
) {
  const p = (i: number) => sql.placeholder(`s${i}`);
  const inRange = options.createdRange
    ? and(gte(table.createdAt, sql.placeholder("from")), lte(table.createdAt, sql.placeholder("to")))
    : undefined;
  const inScope = (): SQL | undefined => and(...scope.map((col, i) => eq(col, p(i))), inRange, options.filter);
  const cursorScope = scope.slice(0, options.cursorScope ?? scope.length);
  const at = sql.placeholder("at");
  const cid = sql.placeholder("cid");
  const limit = sql.placeholder("limit");
  const newestFirst = [desc(table.createdAt), desc(table.id)];
  // Prepared on the first page asked for: a service has a dozen lists, and starting should not build them all.
  let statements: ReturnType<typeof prepare> | null = null;
  const prepare = () => ({
    cursor: orm
      .select({ createdAt: table.createdAt })
      .from(table)
      .where(and(eq(table.id, cid), ...cursorScope.map((col, i) => eq(col, p(i)))))
      .limit(1)
      .prepare(),
    first: orm.select().from(table).where(inScope()).orderBy(...newestFirst).limit(limit).prepare(),
    after: orm
      .select()
      .from(table)
      .where(and(inScope(), rowCompare([table.createdAt, table.id], "<", [at, cid])))
      .orderBy(...newestFirst)
      .limit(limit)
      .prepare(),
    before: orm
      .select()
      .from(table)
      .where(and(inScope(), rowCompare([table.createdAt, table.id], ">", [at, cid])))
      .orderBy(asc(table.createdAt), asc(table.id))
      .limit(limit)
      .prepare(),
  });

  return async function page(scopeValues: unknown[], query: PageQuery, range: CreatedRange = ALL_TIME, filterValues: Record<string, unknown> = {}): Promise<Page<Row>> {
    const n = parseLimit(query.limit);
    statements ??= prepare();
    const { cursor, first, after, before } = statements;
    if (query.starting_after && query.ending_before) {
      throw errors.validation([{ field: "ending_before", message: "use either starting_after or ending_before, not both" }]);
    }
    const params: Record<string, unknown> = { ...filterValues, limit: n + 1 };
    if (options.createdRange) Object.assign(params, range);
    scopeValues.forEach((v, i) => (params[`s${i}`] = v));
    const cursorId = query.starting_after ?? query.ending_before;
    let rows: Row[];
    if (!cursorId) {
      rows = (await first.execute(params)) as unknown as Row[];
    } else {
      const [found] = await cursor.execute({ ...params, cid: cursorId });
      if (!found) throw errors.invalidField(query.starting_after ? "starting_after" : "ending_before", `no ${noun} with id ${cursorId}`);
      const args = { ...params, cid: cursorId, at: found.createdAt };
      rows = (await (query.starting_after ? after : before).execute(args)) as unknown as Row[];
    }
    const has_more = rows.length > n;
    const data = rows.slice(0, n);
    if (query.ending_before) data.reverse();
    return { data, has_more };
  };
}

/**
 * The pagers of a list with optional equality filters (a video's status and product, a top-up's status): each call
 * passes a value per filter, `undefined` for one not asked for, and pages with the pager of that combination, prepared
 * the first time it is asked for, so a list with several filters never prepares combinations nobody uses. A cursor is
 * looked up in `scope` alone (the account): a row that has left a filter since (a top-up paid) still marks the place.
 */
export function filteredPagers<Row extends { id: string; createdAt: number }>(
  orm: Orm,
  table: SQLiteTable & Keyed,
  scope: SQLiteColumn[],
  filters: SQLiteColumn[],
  noun: string,
  options: Omit<PagerOptions, "cursorScope"> = {},
) {
  const pagers = new Map<string, ReturnType<typeof createPager<Row>>>();
  return function page(scopeValues: unknown[], filterValues: unknown[], query: PageQuery, range?: CreatedRange): Promise<Page<Row>> {
    const asked = filters.map((_, i) => filterValues[i] !== undefined);
    const key = asked.map((on) => (on ? "1" : "0")).join("");
    let pager = pagers.get(key);
    if (!pager) {
      pager = createPager<Row>(orm, table, [...scope, ...filters.filter((_, i) => asked[i])], noun, { ...options, cursorScope: scope.length });
      pagers.set(key, pager);
    }
    return pager([...scopeValues, ...filterValues.filter((_, i) => asked[i])], query, range);
  };
}
