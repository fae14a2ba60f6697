// A page's frame: its one <h1> (also the document title; it takes the focus after an in-app navigation) and optional
// actions beside it.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { takeHeadingFocus } from "../focus";
import { useT } from "../i18n";

type Props = { title: string; actions?: ComponentChildren; children?: ComponentChildren; back?: ComponentChildren };

export function Page({ title, actions, children, back }: Props) {
  const t = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t("app.name")}`;
  }, [title]);
  useEffect(() => {
    // Arrived here by an in-app link: the heading takes the focus (unless the user has already moved it on).
    const free = document.activeElement === document.body || document.activeElement?.id === "main";
    if (takeHeadingFocus() && free) heading.current?.focus();
  }, []);
  return (
    <>
      {back && <p class="back">{back}</p>}
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions && <div class="page-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

/** What a page not built yet shows (the PAGES engineer replaces these files wholesale). */
export function Placeholder({ title }: { title: string }) {
  const t = useT();
  return (
    <Page title={title}>
      <p>{t("common.placeholder")}</p>
    </Page>
  );
}
