// The Studio's sign-in: POST /studio/session trades an account token (or the admin token) for a session cookie,
// GET tells the browser app who it is and its CSRF token, DELETE signs out on the server, and GET /studio/login/:code
// uses a one-time login link. The token itself never reaches browser storage: only the HttpOnly cookie does.
import type { BlockList } from "node:net";
import { Elysia, t } from "elysia";
import type { StudioSession } from "../../accounts";
import { errors, iso } from "../../kernel";
import type { PeerSource } from "../client-address";
import { sameSecret, type GuardDeps } from "../guard";
import { ok, operation } from "../openapi-docs";
import { checkCsrf, clearedCookie, isHttps, sessionCookie, sessionSecret } from "../studio-cookie";

export type StudioSessionDeps = Pick<GuardDeps, "accounts" | "sessions" | "auth" | "adminToken"> & {
  /** VITRIN_TRUSTED_PROXIES: only they may say (X-Forwarded-Proto) that the browser used https. */
  trustedProxies: BlockList | null;
};

const sessionSchema = t.Object({
  object: t.Literal("studio_session"),
  kind: t.Union([t.Literal("account"), t.Literal("admin")]),
  account: t.Union([t.Object({ id: t.String(), name: t.String(), language: t.String() }), t.Null()]),
  csrf_token: t.String({ description: "Send it back as X-CSRF-Token on every POST, PATCH, PUT and DELETE made with the cookie." }),
  token_id: t.Union([t.String(), t.Null()], { description: "The API token this session was opened with (revoking it ends the session); null for a login link or the operator." }),
  expires_at: t.String({ format: "date-time", description: "When the session ends at the latest (2 idle hours end it sooner)." }),
});

const signInBody = t.Object({ token: t.String({ minLength: 1, maxLength: 500, description: "An account's API token or VITRIN_ADMIN_TOKEN." }) }, { additionalProperties: false });

const NO_SESSION = "No Studio session: sign in with POST /studio/session or a login link.";

async function sessionJson(deps: StudioSessionDeps, session: StudioSession) {
  const row = session.accountId ? await deps.accounts.get(session.accountId) : null;
  return {
    object: "studio_session" as const,
    kind: session.kind,
    account: row ? { id: row.id, name: row.name, language: row.language } : null,
    csrf_token: session.csrfToken,
    token_id: session.kind === "account" && session.openedWith.startsWith("tok_") ? session.openedWith : null,
    expires_at: iso(session.expiresAt)!,
  };
}

/** Opens a session for the admin token or a live account token; null for anything else. */
async function signIn(deps: StudioSessionDeps, token: string) {
  const fingerprint = deps.sessions.adminFingerprint();
  if (fingerprint !== null && sameSecret(token, deps.adminToken)) {
    return deps.sessions.open({ kind: "admin", accountId: null, openedWith: fingerprint });
  }
  const principal = await deps.accounts.authenticate(token);
  if (!principal) return null;
  return deps.sessions.open({ kind: "account", accountId: principal.accountId, openedWith: principal.tokenId });
}

/** The answer to a login link: the cookie and on to the products page, or back to sign-in saying the link failed. */
async function useLoginLink(deps: StudioSessionDeps, code: string, request: Request, server: PeerSource): Promise<Response> {
  const link = await deps.sessions.consumeLoginLink(code);
  // The code is in this URL: no page it leads to may pass it on as a Referer.
  if (!link) return new Response(null, { status: 303, headers: { location: "/sign-in?link=invalid", "cache-control": "no-store", "referrer-policy": "no-referrer" } });
  const { secret } = await deps.sessions.open({ kind: "account", accountId: link.accountId, openedWith: link.linkId });
  const headers = { location: "/products", "cache-control": "no-store", "referrer-policy": "no-referrer", "set-cookie": sessionCookie(secret, isHttps(request, server, deps.trustedProxies)) };
  return new Response(null, { status: 303, headers });
}

export function studioSessionRoutes(deps: StudioSessionDeps) {
  const current = async (request: Request) => {
    const secret = sessionSecret(request);
    const session = secret === null ? null : await deps.sessions.resolve(secret);
    return session ? { secret: secret!, session } : null;
  };
  return new Elysia({ prefix: "/studio", normalize: false })
    .get(
      "/session",
      async ({ request, set }) => {
        const found = await current(request);
        if (!found) throw errors.unauthorized(NO_SESSION);
        set.headers["cache-control"] = "no-store";
        return sessionJson(deps, found.session);
      },
      { detail: operation({ tags: ["Studio"], summary: "The Studio session of this browser (its cookie) and its CSRF token", auth: "none", ok: ok(200, sessionSchema, "The session"), errors: [401] }) },
    )
    .post(
      "/session",
      async ({ request, server, body, set }) => {
        deps.auth.admit(request, server);
        const opened = await signIn(deps, body.token);
        if (!opened) throw deps.auth.reject("account", request, server, body.token, "The token is unknown or revoked.");
        set.headers["set-cookie"] = sessionCookie(opened.secret, isHttps(request, server, deps.trustedProxies));
        set.headers["cache-control"] = "no-store";
        return sessionJson(deps, opened.session);
      },
      {
        body: signInBody,
        parse: "json",
        detail: operation({ tags: ["Studio"], summary: "Sign the browser in with a token: sets the HttpOnly session cookie", auth: "none", ok: ok(200, sessionSchema, "Signed in"), errors: [400, 401, 422, 429] }),
      },
    )
    .delete(
      "/session",
      async ({ request, server }) => {
        const found = await current(request);
        if (!found) throw errors.unauthorized(NO_SESSION);
        checkCsrf(request, found.session);
        await deps.sessions.close(found.secret);
        return new Response(null, { status: 204, headers: { "set-cookie": clearedCookie(isHttps(request, server, deps.trustedProxies)) } });
      },
      {
        detail: operation({
          tags: ["Studio"],
          summary: "Sign out: ends the session on the server and clears the cookie (needs X-CSRF-Token)",
          auth: "none",
          responses: { 204: { description: "Signed out" } },
          errors: [401, 403],
        }),
      },
    )
    // No params schema: a code of any length, or one whose %-escapes do not decode, is not a link's shape and gets the
    // same redirect to the sign-in page as an unknown one (a browser is never shown a JSON error here).
    .get("/login/:code", ({ params, request, server }) => useLoginLink(deps, typeof params.code === "string" ? params.code : "", request, server), {
      detail: { hide: true },
    });
}
