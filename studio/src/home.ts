// Where a visitor starts: operators on their health page, accounts on their products, nobody on the sign-in page.
import type { Session } from "./session";

export function homeOf(session: Session | null): string {
  if (!session) return "/sign-in";
  return session.kind === "admin" ? "/admin" : "/products";
}
