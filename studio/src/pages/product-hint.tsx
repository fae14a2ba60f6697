// Telling the next cut-out which object is the product: marks on the original photo (a point on the product, points
// to leave out) that Retry sends as its hint. By mouse (click) or keyboard (arrow keys move a cross, Enter marks).
import type { TargetedKeyboardEvent, TargetedMouseEvent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Button } from "../components/button";
import { defineMessages } from "../i18n";
import type { Mark } from "./product-hint-marks";

export { hintOf, type Hint, type Mark } from "./product-hint-marks";

const useMessages = defineMessages({
  en: {
    title: "Point to the product",
    intro: "If the cut-out took the wrong thing, mark the product on the photo (and anything to leave out); Retry uses the marks.",
    keys: "Arrow keys move the cross (Shift for bigger steps), Enter marks the spot.",
    area: "Photo to mark",
    keep: "The product",
    drop: "Leave out",
    mode: "A click marks",
    clear: "Clear marks",
    count: "{n} {n|mark|marks}: {keep} on the product, {drop} to leave out.",
    none: "No marks: the next attempt chooses by itself.",
  },
  tr: {
    title: "Ürünü gösterin",
    intro: "Dekupe yanlış nesneyi aldıysa fotoğrafta ürünü (ve dışarıda kalacakları) işaretleyin; Yeniden dene işaretleri kullanır.",
    keys: "Ok tuşları artıyı taşır (büyük adım için Shift), Enter o noktayı işaretler.",
    area: "İşaretlenecek fotoğraf",
    keep: "Ürün",
    drop: "Dışarıda kalsın",
    mode: "Tıklama şunu işaretler",
    clear: "İşaretleri temizle",
    count: "{n} işaret: {keep} ürünün üzerinde, {drop} dışarıda kalacak.",
    none: "İşaret yok: sonraki deneme kendi seçer.",
  },
});

type Props = { photo: string; marks: Mark[]; onChange(marks: Mark[]): void };

export function HintPicker({ photo, marks, onChange }: Props) {
  const m = useMessages();
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  const [keep, setKeep] = useState(true);
  // Marks cleared (by a Retry that used them, or Clear marks) start the next ones on the product again, not left out.
  const cleared = marks.length === 0;
  useEffect(() => {
    if (cleared) setKeep(true);
  }, [cleared]);
  // The keyboard's cross, as fractions of the photo (0–1).
  const [cross, setCross] = useState({ x: 0.5, y: 0.5 });
  const add = (fx: number, fy: number) => {
    if (!size) return;
    const x = Math.min(size.w - 1, Math.max(0, Math.round(fx * size.w)));
    const y = Math.min(size.h - 1, Math.max(0, Math.round(fy * size.h)));
    // The API takes one point on the product: a new one moves it; leave-out marks add up.
    onChange([...marks.filter((mk) => !(keep && mk.keep)), { x, y, keep }]);
  };
  const click = (e: TargetedMouseEvent<HTMLDivElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    add((e.clientX - box.left) / box.width, (e.clientY - box.top) / box.height);
  };
  const key = (e: TargetedKeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 0.1 : 0.02;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[e.key]) {
      e.preventDefault();
      const [dx, dy] = moves[e.key]!;
      setCross((c) => ({ x: Math.min(1, Math.max(0, c.x + dx)), y: Math.min(1, Math.max(0, c.y + dy)) }));
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      add(cross.x, cross.y);
    }
  };
  const kept = marks.filter((mk) => mk.keep).length;
  return (
    <section class="card hint-picker" aria-labelledby="hint-title">
      <h2 id="hint-title">{m("title")}</h2>
      <p class="hint">{m("intro")}</p>
      <div class="lang-switch hint-mode" role="group" aria-label={m("mode")}>
        <button type="button" aria-pressed={keep} onClick={() => setKeep(true)}>
          {m("keep")}
        </button>
        <button type="button" aria-pressed={!keep} onClick={() => setKeep(false)}>
          {m("drop")}
        </button>
      </div>
      <div
        class="hint-area"
        role="application"
        tabIndex={0}
        aria-label={m("area")}
        aria-describedby="hint-keys hint-count"
        onClick={click}
        onKeyDown={key}
        style={{ aspectRatio: size ? `${size.w} / ${size.h}` : "4 / 3" }}
      >
        <img src={photo} alt="" onLoad={(e) => setSize({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })} />
        {size &&
          marks.map((mk, i) => (
            <span key={i} class={`hint-mark ${mk.keep ? "hint-keep" : "hint-drop"}`} style={{ left: `${(mk.x / size.w) * 100}%`, top: `${(mk.y / size.h) * 100}%` }} aria-hidden="true" />
          ))}
        <span class="hint-cross" style={{ left: `${cross.x * 100}%`, top: `${cross.y * 100}%` }} aria-hidden="true" />
      </div>
      <p class="hint" id="hint-keys">{m("keys")}</p>
      <p id="hint-count" aria-live="polite">
        {marks.length === 0 ? m("none") : m("count", { n: marks.length, keep: kept, drop: marks.length - kept })}
      </p>
      {marks.length > 0 && (
        <div class="row">
          <Button onClick={() => onChange([])}>{m("clear")}</Button>
        </div>
      )}
    </section>
  );
}
