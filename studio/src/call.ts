// Turns an openapi-fetch answer into its data or a thrown ApiError carrying the catalogue's message, so pages load and
// act with plain try/catch and show the API's own words when something is refused.
import { asProblem, fieldErrors, type ApiProblem } from "./api";

/** A refused request: the status and the catalogue error (its `message` is what the page shows). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ApiProblem,
  ) {
    super(problem.message);
  }
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or an ApiError for any non-2xx status. */
export async function must<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const problem = asProblem(error) ?? { error: response.statusText || "Error", code: `http_${response.status}`, message: `HTTP ${response.status}` };
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

/**
 * What to tell the user about a failure: the API's message (plus its field problems), or `network` when the request
 * never got an answer (fetch throws a TypeError then).
 */
export function messageOf(e: unknown, network: string): string {
  if (e instanceof ApiError) {
    const fields = Object.entries(fieldErrors(e.problem)).map(([field, message]) => (field ? `${field}: ${message}` : message));
    return fields.length ? `${e.message} (${fields.join("; ")})` : e.message;
  }
  if (e instanceof TypeError) return network;
  return e instanceof Error ? e.message : String(e);
}

/**
 * What a form's alert says: the API's message alone when the form shows its field problems inline (so they are not
 * said twice), else as messageOf.
 */
export function formMessageOf(e: unknown, network: string): string {
  return e instanceof ApiError ? e.message : messageOf(e, network);
}

/** The per-field messages of a refused form (`amount`, `name`…), empty for other failures. */
export function fieldsOf(e: unknown): Record<string, string> {
  return e instanceof ApiError ? fieldErrors(e.problem) : {};
}
