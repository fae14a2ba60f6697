// An account's top-ups, newest first in cursor pages, optionally of one status: what lets a payer find a top-up still
// waiting for its payment after the tab that started it is gone.
import { filteredPagers, type Db, type PageQuery } from "../db";
import { errors } from "../kernel";
import { topUpJson, type TopUpRow } from "./top-ups";

export const TOP_UP_STATUSES = ["pending", "paid", "failed", "expired"] as const;

export type TopUpListQuery = PageQuery & { status?: string };

/** The pagers over an account's top-ups: all of them, and those of one status (each prepared on first use). */
export function topUpPagers(db: Db) {
  const { topUps } = db.schema;
  return filteredPagers<TopUpRow>(db.read, topUps, [topUps.accountId], [topUps.status], "top-up");
}

export async function listTopUps(pagers: ReturnType<typeof topUpPagers>, accountId: string, query: TopUpListQuery) {
  const { status, ...page } = query;
  if (status !== undefined && !(TOP_UP_STATUSES as readonly string[]).includes(status)) {
    throw errors.invalidField("status", `must be one of ${TOP_UP_STATUSES.join(", ")}`);
  }
  const found = await pagers([accountId], [status], page);
  return { data: found.data.map(topUpJson), has_more: found.has_more };
}
