// HTTP route GET /v1/music: the tracks a video's `music` may name (shipped ones and those of VITRIN_MUSIC_DIRS).
import { Elysia } from "elysia";
import { ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { accountGuard, type GuardDeps } from "../guard";
import { noQuery } from "../schema";
import { trackJson, type Music } from "../../music";

export function musicRoutes(guard: GuardDeps, music: Music) {
  // The catalogue is fixed once the service has started: its answer is made once.
  const page = { data: music.list().map(trackJson), has_more: false };
  return new Elysia({ prefix: "/v1", normalize: false })
    .use(accountGuard(guard))
    .get("/music", () => page, {
      query: noQuery,
      detail: operation({ tags: ["Videos"], summary: "The music tracks a video can use (its `music` field: auto, a track id or none)", ok: ok(200, pageOf(s.track, "Every track"), "Every track"), errors: [422] }),
    });
}
