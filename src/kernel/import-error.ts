// Why a module written by an operator (a folder plugin or template) could not be imported, in one line: Bun reports a
// syntax error as a BuildMessage with its place, and several as an AggregateError whose own message only counts them.

type Place = { line?: number; column?: number };

function one(e: unknown): string {
  const message = (e as Error)?.message ?? String(e);
  const at = (e as { position?: Place | null })?.position;
  return at?.line ? `${message} (line ${at.line}, column ${(at.column ?? 0) + 1})` : message;
}

/** Every error of the import, with line and column where Bun gives them. */
export function describeImportError(e: unknown): string {
  const all = (e as { errors?: unknown[] })?.errors;
  return Array.isArray(all) && all.length > 0 ? all.map(one).join("; ") : one(e);
}
