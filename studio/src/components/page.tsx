// A page's frame: its one <h1> (also the document title) and optional actions beside it.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { useT } from "../i18n";

type Props = { title: string; actions?: ComponentChildren; children?: ComponentChildren; back?: ComponentChildren };

export function Page({ title, actions, children, back }: Props) {
  const t = useT();
  useEffect(() => {
    document.title = `${title} · ${t("app.name")}`;
  }, [title]);
  return (
    <>
      {back && <p class="back">{back}</p>}
      <div class="page-head">
        <h1>{title}</h1>
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
