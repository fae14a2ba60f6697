// The cut-out warnings the API gives (codes) in words, as a list under the cut-out and in the attempts table.
import { defineMessages } from "../i18n";

const useMessages = defineMessages({
  en: {
    subject_touches_edge: "The product touches the photo's edge: it may be cut off.",
    small_subject: "The product has few pixels in this photo: a video enlarges it more than twice, so it may look soft. A larger photo helps.",
    soft_matte: "Much of the product is half-transparent: check the cut-out's edges.",
    frame_filling: "The cut-out fills almost the whole photo: the background may still be there.",
  },
  tr: {
    subject_touches_edge: "Ürün fotoğrafın kenarına değiyor: kesilmiş olabilir.",
    small_subject: "Ürün bu fotoğrafta az pikselle görünüyor: video onu iki kattan fazla büyütür, bulanık görünebilir. Daha büyük bir fotoğraf yardımcı olur.",
    soft_matte: "Ürünün büyük kısmı yarı saydam: dekupenin kenarlarını kontrol edin.",
    frame_filling: "Dekupe neredeyse tüm fotoğrafı kaplıyor: arka plan hâlâ duruyor olabilir.",
  },
});

type Code = "subject_touches_edge" | "small_subject" | "soft_matte" | "frame_filling";

export function Warnings({ codes }: { codes: string[] }) {
  const m = useMessages();
  if (codes.length === 0) return null;
  const known = (c: string): c is Code => ["subject_touches_edge", "small_subject", "soft_matte", "frame_filling"].includes(c);
  return (
    <ul class="warnings">
      {codes.map((c) => (
        <li key={c}>{known(c) ? m(c) : c}</li>
      ))}
    </ul>
  );
}
