// Before and after: the photo, and over it the cut-out on a checkerboard at its place in the photo (source_box),
// revealed from the left up to where the labelled range slider says (arrow keys move it).
import { useState } from "preact/hooks";
import { useT } from "../i18n";

type Box = { x: number; y: number; width: number; height: number };

function asBox(value: unknown): Box | null {
  const b = value as Partial<Box> | null;
  return b && [b.x, b.y, b.width, b.height].every((n) => typeof n === "number") ? (b as Box) : null;
}

type Props = { photo: string; cutout: string; sourceBox: unknown; name: string };

export function Compare({ photo, cutout, sourceBox, name }: Props) {
  const t = useT();
  const [cut, setCut] = useState(50);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  const box = asBox(sourceBox);
  // Until the photo's own size is known (or without a box) the cut-out simply fills the frame.
  const place =
    box && size
      ? {
          left: `${(box.x / size.w) * 100}%`,
          top: `${(box.y / size.h) * 100}%`,
          width: `${(box.width / size.w) * 100}%`,
          height: `${(box.height / size.h) * 100}%`,
        }
      : { left: "0", top: "0", width: "100%", height: "100%" };
  return (
    <figure class="compare-figure">
      <div class="compare" style={{ "--cut": `${cut}%`, aspectRatio: size ? `${size.w} / ${size.h}` : "1" }}>
        <img
          src={photo}
          alt={t("products.photo", { name })}
          onLoad={(e) => setSize({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
        />
        <div class="after checkerboard">
          <img src={cutout} alt={t("products.cutout", { name })} style={place} />
        </div>
        <div class="compare-divider" aria-hidden="true" />
      </div>
      <figcaption class="row compare-caption">
        <span>{t("product.original")}</span>
        <label class="visually-hidden" for="compare-slider">
          {t("product.slider")}
        </label>
        <input
          id="compare-slider"
          type="range"
          min={0}
          max={100}
          step={1}
          value={cut}
          aria-valuetext={`${100 - cut}% ${t("product.cutout")}`}
          onInput={(e) => setCut(Number(e.currentTarget.value))}
        />
        <span>{t("product.cutout")}</span>
      </figcaption>
    </figure>
  );
}
