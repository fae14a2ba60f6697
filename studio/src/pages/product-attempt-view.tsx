// A cut-out attempt opened large in a dialog, on the checkerboard, with what it was asked with; beside it, when
// chosen, another attempt of the list (the one in use, or any other with a cut-out) to compare; Accept from there too.
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "../api";
import { Button } from "../components/button";
import { Dialog } from "../components/dialog";
import { SelectField } from "../components/field";
import { defineMessages, useLang, useT } from "../i18n";
import { cropWords, hintWords } from "./product-attempt-words";

export type Attempt = Schemas["DekupeAttempt"];

const useMessages = defineMessages({
  en: {
    beside: "Compare with",
    // The dialog's own attempt (its title), not the one beside it.
    acceptThis: "Accept this attempt",
    alone: "Nothing: this attempt alone",
    inUse: "{name} (in use)",
    picture: "Cut-out of {name}",
  },
  tr: {
    beside: "Şununla karşılaştır",
    acceptThis: "Bu denemeyi kabul et",
    alone: "Hiçbiri: yalnız bu deneme",
    inUse: "{name} (kullanımda)",
    picture: "{name} dekupesi",
  },
});

/** One attempt's cut-out, large, with its number, whether it is in use, and its frame and marks. */
function AttemptFigure({ attempt }: { attempt: Attempt }) {
  const t = useT();
  const m = useMessages();
  const { lang } = useLang();
  const name = t("product.attempt", { n: attempt.number });
  return (
    <figure class="attempt-figure">
      <img class="attempt-large checkerboard" src={attempt.preview_url ?? ""} alt={m("picture", { name })} />
      <figcaption>
        <strong>{attempt.in_use ? m("inUse", { name }) : name}</strong>
        <span>{cropWords(attempt.crop, lang)}</span>
        <span>{hintWords(attempt.hint, lang)}</span>
      </figcaption>
    </figure>
  );
}

type Props = { attempts: Attempt[]; shown: Attempt | null; busy: boolean; onClose(): void; onAccept(attemptId: string, number: number): void };

export function AttemptViewer({ attempts, shown, busy, onClose, onAccept }: Props) {
  const t = useT();
  const m = useMessages();
  const [other, setOther] = useState("");
  // Each attempt opens on its own; a comparison is chosen anew.
  useEffect(() => setOther(""), [shown?.id]);
  const choices = attempts.filter((a) => a.preview_url && a.id !== shown?.id);
  const beside = choices.find((a) => a.id === other) ?? null;
  const name = shown ? t("product.attempt", { n: shown.number }) : "";
  const accept =
    shown && shown.status === "ready" && !shown.in_use ? (
      <Button variant="primary" disabled={busy} onClick={() => (onClose(), onAccept(shown.id, shown.number))}>
        {m("acceptThis")}
      </Button>
    ) : null;
  return (
    <Dialog open={!!shown} title={name} onClose={onClose} actions={accept} wide>
      {shown && choices.length > 0 && (
        <SelectField
          label={m("beside")}
          name="compare-with"
          value={other}
          onValue={setOther}
          options={[
            { value: "", label: m("alone") },
            ...choices.map((a) => {
              const label = t("product.attempt", { n: a.number });
              return { value: a.id, label: a.in_use ? m("inUse", { name: label }) : label };
            }),
          ]}
        />
      )}
      {shown && (
        <div class={beside ? "attempt-views attempt-views-two" : "attempt-views"}>
          <AttemptFigure attempt={shown} />
          {beside && <AttemptFigure attempt={beside} />}
        </div>
      )}
    </Dialog>
  );
}
