// One video: live status and progress while it renders (polled every 2 s), then the player (<video> with its
// thumbnail as poster), Download and the thumbnail; a failed one says why and that its credits came back.
import { LinkButton } from "../components/button";
import { Alert } from "../components/alert";
import { BackIcon, DownloadIcon } from "../components/icons";
import { Page } from "../components/page";
import { Loading, Spinner } from "../components/spinner";
import { StatusBadge } from "../components/status-badge";
import { useLoad, usePoll } from "../hooks";
import { formatDate, languageName, problemText, useLang, useT } from "../i18n";
import { loadProducts } from "./products";
import { loadTemplates, loadVideo, moving, templateWords, videoStatus, type Video } from "./videos-data";

async function loadAll(id: string) {
  const [video, templates, products] = await Promise.all([loadVideo(id), loadTemplates().catch(() => []), loadProducts().catch(() => [])]);
  if (!video) return null;
  const template = templates.find((t) => t.id === video.template_id) ?? null;
  const product = products.find((p) => p.id === video.product_id) ?? null;
  return { video, template, productName: product?.name ?? video.product_id };
}

function Details({ video, templateName, productName }: { video: Video; templateName: string; productName: string }) {
  const t = useT();
  const { lang } = useLang();
  const rows: [string, string][] = [
    [t("videoNew.product"), productName],
    [t("videoNew.template"), templateName],
    [t("videoNew.language"), languageName(video.language, lang)],
    [t("videoNew.format"), `${video.aspect_ratio}${video.width ? ` · ${video.width}×${video.height}` : ""}`],
    [t("video.cost"), t("common.credits", { n: video.credits_used || video.credits_reserved })],
    [t("videos.created"), formatDate(video.created_at, lang)],
  ];
  if (video.duration !== null) rows.splice(4, 0, [t("video.duration"), t("video.seconds", { n: video.duration })]);
  if (video.completed_at) rows.push([t("status.completed"), formatDate(video.completed_at, lang)]);
  return (
    <section class="card" aria-labelledby="video-details">
      <h2 id="video-details">{t("video.details")}</h2>
      <dl class="dl">
        {rows.map(([k, v]) => [<dt key={`${k}-t`}>{k}</dt>, <dd key={`${k}-d`}>{v}</dd>])}
      </dl>
    </section>
  );
}

function Player({ video, title }: { video: Video; title: string }) {
  const t = useT();
  if (!video.video_url) return null;
  // The API's download links save the files under the product, template, format and language (their answer's
  // Content-Disposition names them, which a link to another origin such as a presigned S3 link needs; it also wins
  // over the `download` attribute's own name).
  return (
    <div class="player-box">
      <video class="player" controls preload="metadata" playsInline src={video.video_url} poster={video.thumbnail_url ?? undefined} aria-label={title} />
      <div class="row">
        <LinkButton href={video.download_url ?? video.video_url} download variant="primary">
          <DownloadIcon />{t("video.download")}
        </LinkButton>
        {video.thumbnail_url && (
          <LinkButton href={video.thumbnail_download_url ?? video.thumbnail_url} download>
            {t("video.thumbnail")}
          </LinkButton>
        )}
      </div>
    </div>
  );
}

export function VideoPage({ id }: { id: string }) {
  const t = useT();
  const { lang } = useLang();
  const loaded = useLoad(() => loadAll(id), [id]);
  const data = loaded.data;
  usePoll(Boolean(data && moving(data.video.status)), loaded.reload);
  const back = (
    <a href="/videos">
      <BackIcon size={16} />{t("video.back")}
    </a>
  );
  if (loaded.loading && !data) return <Loading />;
  if (!data) {
    return (
      <Page title={t("video.notFound")} back={back}>
        {loaded.error && <Alert tone="error">{loaded.error}</Alert>}
      </Page>
    );
  }
  const { video, template } = data;
  const templateName = template ? templateWords(template, lang).name : video.template_id;
  const title = `${data.productName} · ${templateName}`;
  const progress = video.status === "queued" ? 0 : Math.round(video.progress);
  return (
    <Page title={title} back={back}>
      <p class="meta">
        <StatusBadge status={videoStatus(video.status)} />
      </p>
      <div class="two-col">
        <section aria-label={t("video.player")}>
          {moving(video.status) && (
            <div class="card waiting">
              <p class="loading">
                <Spinner label="" />{t("video.waiting")}
              </p>
              <progress max={100} value={progress} aria-label={t("videos.progress")}>
                {progress}%
              </progress>
            </div>
          )}
          {video.status === "failed" && (
            <Alert tone="error">
              <p>{t("video.failed", { reason: video.error ? problemText({ code: video.error.code, message: video.error.message ?? video.error.code }, lang) : t("common.error") })}</p>
              <p>{template ? t("video.refunded", { n: template.credits }) : t("video.refundedAny")}</p>
            </Alert>
          )}
          {video.status === "completed" && <Player video={video} title={title} />}
          {video.files_deleted_at && <Alert tone="info">{t("video.filesDeleted", { date: formatDate(video.files_deleted_at, lang) })}</Alert>}
        </section>
        <Details video={video} templateName={templateName} productName={data.productName} />
      </div>
    </Page>
  );
}
