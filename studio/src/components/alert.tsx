// Messages: success and information as role=status (announced politely), errors as role=alert (announced at once).
import type { ComponentChildren } from "preact";

type Props = { tone?: "info" | "success" | "warning" | "error"; children: ComponentChildren; id?: string };

export function Alert({ tone = "info", children, id }: Props) {
  return (
    <div id={id} class={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
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
