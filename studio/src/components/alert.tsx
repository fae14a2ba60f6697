// Messages: success and information as role=status (announced politely), errors as role=alert (announced at once).
// A message that reports what the user just did can take the focus, so the view and the keyboard go to it.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { moveFocus } from "../focus";

type Props = {
  tone?: "info" | "success" | "warning" | "error";
  children: ComponentChildren;
  id?: string;
  /** When set, the message takes the focus as it appears and again whenever this value changes (a new notice). */
  focusKey?: unknown;
};

export function Alert({ tone = "info", children, id, focusKey }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusKey) moveFocus(ref.current);
  }, [focusKey]);
  return (
    <div ref={ref} id={id} class={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"} tabIndex={focusKey ? -1 : undefined}>
      {children}
    </div>
  );
}

/** A list of messages (several field problems at once). */
export function AlertList({ tone = "error", title, items }: { tone?: Props["tone"]; title?: string; items: string[] }) {
  if (items.length === 0 && !title) return null;
  return (
    <Alert tone={tone}>
      {title && <p class="alert-title">{title}</p>}
      {items.length === 1 && !title ? items[0] : items.length > 0 && <ul>{items.map((item) => <li key={item}>{item}</li>)}</ul>}
    </Alert>
  );
}
