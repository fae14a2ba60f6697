// Reading a database URL: which implementation it selects, and the file a `sqlite:` one names.

export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

export function sqlitePathFromUrl(url: string): string {
  if (!url.startsWith("sqlite:")) throw new Error(`not a sqlite URL: ${url}`);
  const path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  return path;
}
