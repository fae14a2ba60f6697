// The empty state of a list: says what is missing and, when given, what to do about it.
import type { ComponentChildren } from "preact";

export function Empty({ children, action }: { children: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty">
      <p>{children}</p>
      {action}
    </div>
  );
}
