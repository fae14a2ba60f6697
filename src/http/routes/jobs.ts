// Admin routes for the job table: list jobs (e.g. the dead ones) and re-drive a dead job.
import { Elysia, t } from "elysia";
import { ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { adminGuard, type AdminGuardDeps } from "../guard";
import { noBody } from "../schema";
import { errors } from "../../kernel";
import { iso } from "../../kernel";
import { JOB_STATUSES, type JobEngine, type JobRecord } from "../../jobs";

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

export function jobRoutes(admin: AdminGuardDeps, jobs: JobEngine) {
  return new Elysia({ prefix: "/v1/admin/jobs", normalize: false })
    .use(adminGuard(admin))
    .get(
      "",
      async ({ query }) => ({
        data: (await jobs.listJobs({ status: query.status, kind: query.kind, limit: query.limit ?? 50 })).map(jobJson),
        has_more: false,
      }),
      {
        query: t.Object(
          {
            status: t.Optional(t.Union(JOB_STATUSES.map((s) => t.Literal(s)))),
            kind: t.Optional(t.String({ maxLength: 100 })),
            limit: t.Optional(t.Integer({ minimum: 1, maximum: 500 })),
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
