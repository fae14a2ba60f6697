// Cursor pagination shared by every list: newest first by (created_at, id), so rows inserted while a client pages
// through never cause duplicates or gaps (new rows land before the cursor, never after it).
import { and, asc, desc, eq, gt, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Orm } from "./index";
import { errors } from "../http/errors";

export type PageQuery = { limit?: number | string; starting_after?: string; ending_before?: string };
export type Page<T> = { data: T[]; has_more: boolean };

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function parseLimit(raw: number | string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const n = typeof raw === "number" ? raw : /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw errors.invalidField("limit", `must be a whole number from 1 to ${MAX_LIMIT}`);
  return n;
}

type Keyed = { id: SQLiteColumn; createdAt: SQLiteColumn };

/**
 * Lists rows of `table` matching `scope` (e.g. the account), one page at a time.
 * A cursor id that is not in scope is a 422, never a silent empty page.
 */
export async function paginate<Row extends { id: string; createdAt: number }>(
  orm: Orm,
  table: SQLiteTable & Keyed,
  scope: SQL | undefined,
  query: PageQuery,
  noun: string,
): Promise<Page<Row>> {
  const limit = parseLimit(query.limit);
  if (query.starting_after && query.ending_before) {
    throw errors.validation([{ field: "ending_before", message: "use either starting_after or ending_before, not both" }]);
  }
  const cursorId = query.starting_after ?? query.ending_before;
  let cursorCondition: SQL | undefined;
  if (cursorId) {
    const field = query.starting_after ? "starting_after" : "ending_before";
    const [cursor] = await orm
      .select({ createdAt: table.createdAt })
      .from(table)
      .where(and(eq(table.id, cursorId), scope))
      .limit(1);
    if (!cursor) throw errors.invalidField(field, `no ${noun} with id ${cursorId}`);
    const at = cursor.createdAt as number;
    cursorCondition = query.starting_after
      ? or(lt(table.createdAt, at), and(eq(table.createdAt, at), lt(table.id, cursorId)))
      : or(gt(table.createdAt, at), and(eq(table.createdAt, at), gt(table.id, cursorId)));
  }
  const backwards = Boolean(query.ending_before);
  const rows = (await orm
    .select()
    .from(table)
    .where(and(scope, cursorCondition))
    .orderBy(...(backwards ? [asc(table.createdAt), asc(table.id)] : [desc(table.createdAt), desc(table.id)]))
    .limit(limit + 1)) as unknown as Row[];
  const has_more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page, has_more };
}
