// Placeholder for the video page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function VideoPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("video.details")} />;
}
