// Data hooks for pages: load once (and again on demand), and poll while something is still in progress.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export type Loaded<T> = { data: T | null; error: string | null; loading: boolean; reload(): Promise<void> };

/**
 * Runs `load` on mount and whenever `deps` change; `reload` runs it again (keeping the old data while it runs).
 * `initial` (say, what an earlier page already loaded) shows at once while the fresh answer is on its way.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], initial: T | null = null): Loaded<T> {
  const [data, setData] = useState<T | null>(initial);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(load);
  latest.current = load;
  // Each run takes a ticket; only the newest run's answer is kept, so a slow older page never replaces a newer one.
  const ticket = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++ticket.current;
    setLoading(true);
    try {
      const value = await latest.current();
      if (mine !== ticket.current) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (mine === ticket.current) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (mine === ticket.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, deps);
  return { data, error, loading, reload };
}

/** Calls `tick` every `ms` while `active` (a page polls only while a job it shows is queued or running). */
export function usePoll(active: boolean, tick: () => unknown, ms = 2000): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void latest.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

/**
 * After a failed submit, moves focus to the form's first invalid control, so a keyboard or screen-reader user lands
 * on the problem instead of hunting for it; `trigger` is the submit's problem (a new object each time).
 */
export function useFocusFirstInvalid(form: { current: HTMLFormElement | null }, trigger: unknown): void {
  useEffect(() => {
    if (!trigger || !form.current) return;
    form.current.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [trigger]);
}
