// Admin routes for the job table: list jobs (e.g. the dead ones) and re-drive a dead job.
import { Elysia, t } from "elysia";
import { ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { adminGuard, type AdminGuardDeps } from "../guard";
import { DOCUMENTED_AS, noBody, pageQuery } from "../schema";
import { errors } from "../../kernel";
import { iso } from "../../kernel";
import { parseLimit } from "../../db";
import { JOB_STATUSES, type JobEngine, type JobRecord, type JobStatus } from "../../jobs";

export function jobJson(job: JobRecord) {
  return {
    id: job.id,
    object: "job",
    kind: job.kind,
    status: job.status,
    payload: JSON.parse(job.payload),
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    priority: job.priority,
    last_error: job.lastError,
    run_at: iso(job.runAt),
    lease_owner: job.leaseOwner,
    lease_expires_at: iso(job.leaseExpiresAt),
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}

/** Jobs come in larger pages than the other lists: the operator's counts read up to 500 at once. */
const DEFAULT_JOBS_LIMIT = 50;
const MAX_JOBS_LIMIT = 500;

type JobsQuery = { status?: JobStatus; kind?: string; limit?: string; starting_after?: string; ending_before?: string };

/**
 * A kind filter that matches nothing is a 422 listing the registered kinds when it is no kind at all: neither registered
 * nor found in the table (jobs of a kind no longer registered, left by an earlier version, can still be listed).
 */
async function checkKind(jobs: JobEngine, kind: string) {
  if (await jobs.isKnownKind(kind)) return;
  throw errors.invalidField("kind", `must be one of ${jobs.registeredKinds().map((k) => JSON.stringify(k)).join(", ")}`);
}

/** A page of jobs, newest first, after or before a job of the list (as the other lists page, by id). */
async function jobsPage(jobs: JobEngine, query: JobsQuery) {
  if (query.starting_after && query.ending_before) {
    throw errors.validation([{ field: "ending_before", message: "use either starting_after or ending_before, not both" }]);
  }
  const limit = parseLimit(query.limit, { fallback: DEFAULT_JOBS_LIMIT, max: MAX_JOBS_LIMIT });
  const cursorField = query.starting_after ? "starting_after" : query.ending_before ? "ending_before" : null;
  let place: { createdAt: number; id: string } | undefined;
  if (cursorField) {
    const id = query[cursorField]!;
    const job = await jobs.getJob(id);
    if (!job) throw errors.invalidField(cursorField, `no job with id ${id}`);
    place = { createdAt: job.createdAt, id };
  }
  const side = cursorField === "ending_before" ? { before: place } : { after: place };
  const rows = await jobs.listJobs({ status: query.status, kind: query.kind, limit: limit + 1, ...side });
  if (rows.length === 0 && query.kind !== undefined) await checkKind(jobs, query.kind);
  const data = rows.slice(0, limit);
  if (cursorField === "ending_before") data.reverse();
  return { data: data.map(jobJson), has_more: rows.length > limit };
}

export function jobRoutes(admin: AdminGuardDeps, jobs: JobEngine) {
  return new Elysia({ prefix: "/v1/admin/jobs", normalize: false })
    .use(adminGuard(admin))
    .get("", ({ query }) => jobsPage(jobs, query), {
        query: t.Object(
          {
            status: t.Optional(t.Union(JOB_STATUSES.map((s) => t.Literal(s)))),
            kind: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
            limit: t.Optional(
              t.String({
                maxLength: 10,
                description: `Page size, 1–${MAX_JOBS_LIMIT} (default ${DEFAULT_JOBS_LIMIT}).`,
                [DOCUMENTED_AS]: { type: "integer", minimum: 1, maximum: MAX_JOBS_LIMIT, default: DEFAULT_JOBS_LIMIT },
              }),
            ),
            starting_after: pageQuery.properties.starting_after,
            ending_before: pageQuery.properties.ending_before,
          },
          { additionalProperties: false },
        ),
        detail: operation({ tags: ["Admin"], summary: "List jobs (e.g. status=dead)", ok: ok(200, pageOf(s.job, "Jobs"), "Jobs"), errors: [404, 422], auth: "admin" }),
      },
    )
    .get(
      "/:id",
      async ({ params }) => {
        const job = await jobs.getJob(params.id);
        if (!job) throw errors.notFound("job");
        return jobJson(job);
      },
      { detail: operation({ tags: ["Admin"], summary: "One job", ok: ok(200, s.job, "The job"), errors: [404], auth: "admin" }) },
    )
    .post(
      "/:id/redrive",
      async ({ params }) => {
        if (!(await jobs.redrive(params.id))) {
          const job = await jobs.getJob(params.id);
          if (!job) throw errors.notFound("job");
          throw errors.conflict(`Only dead jobs can be re-driven; this one is ${job.status}.`);
        }
        return jobJson((await jobs.getJob(params.id))!);
      },
      { body: noBody, parse: "json", detail: operation({ tags: ["Admin"], summary: "Put a dead job back in the queue with its attempts reset", ok: ok(200, s.job, "The job, queued again"), errors: [400, 404, 409, 422], auth: "admin" }) },
    );
}
