// Buttons: one look for every action (primary, secondary, danger), a busy state that keeps the label readable.
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { Spinner } from "./spinner";

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "class"> & {
  variant?: "primary" | "secondary" | "danger" | "ghost";
  busy?: boolean;
  class?: string;
  children: ComponentChildren;
};

export function Button({ variant = "secondary", busy = false, type = "button", disabled, children, class: extra, ...rest }: Props) {
  return (
    <button {...rest} type={type} class={`btn btn-${variant}${extra ? ` ${extra}` : ""}`} disabled={disabled || busy} aria-busy={busy || undefined}>
      {busy && <Spinner small />}
      {children}
    </button>
  );
}

type LinkProps = { href: string; download?: string | boolean; variant?: Props["variant"]; class?: string; children: ComponentChildren };

/** A link that looks like a button (navigation, downloads). */
export function LinkButton({ href, download, variant = "secondary", children, class: extra }: LinkProps) {
  return (
    <a href={href} download={download === true ? "" : download || undefined} class={`btn btn-${variant}${extra ? ` ${extra}` : ""}`}>
      {children}
    </a>
  );
}
