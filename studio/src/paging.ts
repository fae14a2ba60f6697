// Cursor pagination for the API's `{data, has_more}` lists: each page after the first is asked for with
// starting_after = the last id of the page before; going back pops the cursor stack, so ids never have to be guessed.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export type PageOf<Row> = { data: Row[]; has_more: boolean };

export type CursorList<Row> = {
  rows: Row[];
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  loading: boolean;
  error: unknown;
  next(): void;
  previous(): void;
  /** Loads the current page again (after an action changed something on it). */
  reload(): Promise<void>;
};

/** Pages through `load(startingAfter)`; starts over at page 1 when `deps` change. */
export function useCursorList<Row extends { id: string }>(load: (startingAfter: string | undefined) => Promise<PageOf<Row>>, deps: unknown[] = []): CursorList<Row> {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [result, setResult] = useState<PageOf<Row> | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const latest = useRef(load);
  latest.current = load;
  const cursor = cursors[cursors.length - 1];
  const fetchPage = useCallback(async (after: string | undefined) => {
    setLoading(true);
    try {
      setResult(await latest.current(after));
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  }, []);
  const mounted = useRef(false);
  useEffect(() => {
    // The first run is the mount, which the effect below already loads; later runs mean new filters: back to page 1.
    if (mounted.current) setCursors([undefined]);
    mounted.current = true;
  }, deps);
  useEffect(() => {
    void fetchPage(cursor);
  }, [cursors]);
  const rows = result?.data ?? [];
  return {
    rows,
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    hasNext: Boolean(result?.has_more && rows.length),
    loading,
    error,
    next: () => rows.length && setCursors([...cursors, rows[rows.length - 1].id]),
    previous: () => cursors.length > 1 && setCursors(cursors.slice(0, -1)),
    reload: () => fetchPage(cursor),
  };
}
