// The Studio session (GET/POST/DELETE /studio/session): who is signed in, as an account or as the operator, and the
// CSRF token every state-changing request sends; the token itself goes to the server once and is never stored here.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { problemOf, send, setCsrfToken, type ApiProblem } from "./api";
import { forgetThisTabsWork } from "./tab-work";

export type Session = {
  object: "studio_session";
  kind: "account" | "admin";
  account: { id: string; name: string; language: string } | null;
  csrf_token: string;
  /** The API token the session was opened with (null for a login link or the operator). */
  token_id: string | null;
  expires_at: string;
};

export type SignInResult = { ok: true; session: Session } | { ok: false; problem: ApiProblem };

function remember(session: Session): Session {
  setCsrfToken(session.csrf_token);
  return session;
}

/** The current session, or null when the cookie is missing, expired or signed out. */
export async function loadSession(): Promise<Session | null> {
  const res = await send("/studio/session", {}, { on401: false });
  if (res.status === 401) {
    setCsrfToken(null);
    return null;
  }
  if (!res.ok) throw new Error((await problemOf(res)).message);
  return remember((await res.json()) as Session);
}

/** Starts a session with an account API token or the admin token; a wrong token comes back as the API's problem. */
export async function signIn(token: string): Promise<SignInResult> {
  const res = await send(
    "/studio/session",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) },
    { on401: false },
  );
  if (!res.ok) return { ok: false, problem: await problemOf(res) };
  return { ok: true, session: remember((await res.json()) as Session) };
}

/**
 * Ends the session on the server (the cookie is cleared by its answer) and forgets the tab's unfinished work (drafts,
 * unsent marks), even when the server could not be reached: the person leaving a shared computer has left.
 */
export async function signOut(): Promise<void> {
  try {
    await send("/studio/session", { method: "DELETE" }, { on401: false });
  } finally {
    forgetThisTabsWork();
    setCsrfToken(null);
  }
}

/** The signed-in session for pages (null on the sign-in page); `set` replaces it. */
export type SessionState = { session: Session | null; set(session: Session | null): void };
export const SessionContext = createContext<SessionState>({ session: null, set: () => undefined });

export function useSession(): SessionState {
  return useContext(SessionContext);
}
