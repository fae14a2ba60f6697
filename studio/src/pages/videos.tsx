// Placeholder for the videos page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function VideosPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("videos.title")} />;
}
