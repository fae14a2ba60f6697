// Videos: the account's videos, newest first, with status and live progress (polled every 2 s while one is queued or
// rendering, without reloading the page), paged by the API's cursors. Each row opens its video from the first column;
// the product's name opens the product.
import { useState } from "preact/hooks";
import { api, asProblem } from "../api";
import { Alert } from "../components/alert";
import { LinkButton } from "../components/button";
import { Empty } from "../components/empty";
import { PlusIcon } from "../components/icons";
import { Page } from "../components/page";
import { Pagination } from "../components/pagination";
import { Loading } from "../components/spinner";
import { StatusBadge } from "../components/status-badge";
import { Table } from "../components/table";
import { useLoad, usePoll } from "../hooks";
import { formatDate, languageName, useLang, useT } from "../i18n";
import { loadProducts } from "./products";
import { loadTemplates, moving, templateWords, videoStatus } from "./videos-data";

const PAGE_SIZE = 20;

type Cursor = { after?: string; before?: string };

async function loadPage(cursor: Cursor) {
  const query: Record<string, string> = { limit: String(PAGE_SIZE) };
  if (cursor.after) query.starting_after = cursor.after;
  if (cursor.before) query.ending_before = cursor.before;
  const [videos, products, templates] = await Promise.all([
    api.GET("/v1/videos", { params: { query } }),
    loadProducts().catch(() => []),
    loadTemplates().catch(() => []),
  ]);
  if (videos.error || !videos.data) throw new Error(asProblem(videos.error)?.message ?? "GET /v1/videos failed");
  return {
    videos: videos.data.data,
    hasMore: videos.data.has_more,
    productName: new Map(products.map((p) => [p.id, p.name])),
    template: new Map(templates.map((t) => [t.id, t])),
  };
}

function Progress({ status, progress }: { status: string; progress: number }) {
  const t = useT();
  if (!moving(status)) return <StatusBadge status={videoStatus(status)} />;
  const value = status === "queued" ? 0 : Math.round(progress);
  return (
    <span class="progress-cell">
      <StatusBadge status={videoStatus(status)} />
      <progress max={100} value={value} aria-label={t("videos.progress")}>
        {value}%
      </progress>
    </span>
  );
}

export function VideosPage() {
  const t = useT();
  const { lang } = useLang();
  const [cursor, setCursor] = useState<Cursor>({});
  const [page, setPage] = useState(1);
  const list = useLoad(() => loadPage(cursor), [cursor.after, cursor.before]);
  const rows = list.data?.videos ?? [];
  usePoll(rows.some((v) => moving(v.status)), list.reload);
  // Going back (ending_before) the API says whether older ones exist beyond the page; forward, has_more does.
  const hasNext = cursor.before ? rows.length > 0 : Boolean(list.data?.hasMore);
  const hasPrevious = page > 1;
  // The template's name in the interface's language (the video's own language is in its Open link).
  const names = (v: { product_id: string; template_id: string }) => {
    const template = list.data?.template.get(v.template_id);
    return { product: list.data?.productName.get(v.product_id) ?? v.product_id, template: template ? templateWords(template, lang).name : v.template_id };
  };
  return (
    <Page
      title={t("videos.title")}
      actions={
        <LinkButton href="/videos/new" variant="primary">
          <PlusIcon />{t("videos.create")}
        </LinkButton>
      }
    >
      {list.error && <Alert tone="error">{list.error}</Alert>}
      {list.loading && !list.data ? (
        <Loading />
      ) : rows.length === 0 && page === 1 ? (
        <Empty>{t("videos.empty")}</Empty>
      ) : (
        <Table
          stackOnPhone
          caption={t("videos.title")}
          rows={rows}
          rowKey={(v) => v.id}
          columns={[
            // The video's own link: its thumbnail and `Open`, named for a screen reader by all that tells two videos
            // of one product and template apart (a list of links reads each on its own). The product's name links to
            // the product.
            {
              key: "video",
              label: t("videos.preview"),
              render: (v) => (
                <a class="video-open" href={`/videos/${v.id}`}>
                  {v.thumbnail_url ? <img class="video-thumb" src={v.thumbnail_url} alt="" loading="lazy" /> : <span class="video-thumb" />}
                  <span>
                    {t("videos.openVideo")}
                    <span class="visually-hidden">{` ${[names(v).product, names(v).template, languageName(v.language, lang), v.aspect_ratio].join(" · ")}`}</span>
                  </span>
                </a>
              ),
            },
            {
              key: "product",
              label: t("videos.product"),
              // An account holds at most five products (MAX_PRODUCTS), so loadProducts' one page has them all: a
              // product missing from it was deleted, and has no page to link to. Its id, as text.
              render: (v) => (list.data?.productName.has(v.product_id) ? <a href={`/products/${v.product_id}`}>{names(v).product}</a> : v.product_id),
            },
            { key: "template", label: t("videos.template"), render: (v) => names(v).template },
            // Two videos of one product and template differ by language and format: the list says both, each in its own
            // column (a format beside a language read as part of the language).
            { key: "language", label: t("videoNew.language"), render: (v) => languageName(v.language, lang) },
            { key: "format", label: t("videoNew.format"), render: (v) => v.aspect_ratio },
            { key: "status", label: t("videos.status"), render: (v) => <Progress status={v.status} progress={v.progress} /> },
            { key: "created", label: t("videos.created"), render: (v) => formatDate(v.created_at, lang) },
          ]}
        />
      )}
      <Pagination
        page={page}
        hasPrevious={hasPrevious}
        hasNext={hasNext}
        onPrevious={() => {
          setPage(page - 1);
          setCursor(page - 1 === 1 ? {} : { before: rows[0]?.id });
        }}
        onNext={() => {
          setPage(page + 1);
          setCursor({ after: rows[rows.length - 1]?.id });
        }}
      />
    </Page>
  );
}
