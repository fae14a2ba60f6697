// Cursor pagination for the API's lists (`has_more` plus starting_after/ending_before ids): previous and next.
import { useT } from "../i18n";
import { Button } from "./button";

type Props = { page: number; hasPrevious: boolean; hasNext: boolean; onPrevious(): void; onNext(): void };

export function Pagination({ page, hasPrevious, hasNext, onPrevious, onNext }: Props) {
  const t = useT();
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav class="pagination" aria-label={t("common.pagination")}>
      <Button onClick={onPrevious} disabled={!hasPrevious}>
        {t("common.previous")}
      </Button>
      <span aria-live="polite">{t("common.page", { page })}</span>
      <Button onClick={onNext} disabled={!hasNext}>
        {t("common.next")}
      </Button>
    </nav>
  );
}
