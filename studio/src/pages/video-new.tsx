// Placeholder for the video-new page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function VideoNewPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("videoNew.title")} />;
}
