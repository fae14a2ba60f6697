// A small busy indicator; screen readers hear the label (or nothing when the surrounding text already says it).
import { useT } from "../i18n";

export function Spinner({ small = false, label }: { small?: boolean; label?: string }) {
  const t = useT();
  return (
    <span class={`spinner${small ? " spinner-small" : ""}`} role={label !== "" ? "status" : undefined} aria-label={label === "" ? undefined : (label ?? t("app.loading"))} aria-hidden={label === "" ? true : undefined} />
  );
}

/** A whole-area loading state. */
export function Loading() {
  const t = useT();
  return (
    <p class="loading">
      <Spinner label="" />{t("app.loading")}
    </p>
  );
}
