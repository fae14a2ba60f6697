// Create video: Product, Template (a gallery), the template's own fields, Language, Format and Music; the cost is
// estimated as the form changes (POST /v1/videos/estimate, debounced) and 422 problems show at their fields. While
// that estimate says the balance is short, `Create video` is held back and says how many credits are missing. A
// half-filled form is kept as the product's draft for the tab (video-draft.ts) until its video is created.
import { useLocation } from "preact-iso";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, asProblem, fieldError, fieldErrors, unplacedErrors, type ApiProblem } from "../api";
import { Alert, AlertList } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { SelectField } from "../components/field";
import { BackIcon } from "../components/icons";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { useFocusOnMessage } from "../focus";
import { useFocusFirstInvalid, useLoad } from "../hooks";
import { defineMessages, languageName, useLang, useT } from "../i18n";
import { useSession } from "../session";
import { loadProducts, productsSeen } from "./products";
import { TemplateGallery } from "./video-gallery";
import { buildPrompt, PromptFields, type Schema, type Values } from "./video-fields";
import { choicesSeen, loadMusic, loadTemplates } from "./videos-data";
import { CreditsShort, Estimate, PremiumNeeded, useEstimate, useHoldBack, type VideoRequest } from "./video-estimate";
import { FramePreview } from "./video-preview";
import { clearDraft, fitDraft, lastDraftProduct, loadDraft, saveDraft, tabStorage, type Draft } from "./video-draft";

/** The formats every template composes; the API's default is the first. */
const FORMATS = ["9:16", "4:5", "1:1", "16:9"] as const;
type Format = (typeof FORMATS)[number];

const useFormatNames = defineMessages({
  en: { "9:16": "Vertical", "4:5": "Portrait", "1:1": "Square", "16:9": "Landscape" },
  tr: { "9:16": "Dikey", "4:5": "Portre", "1:1": "Kare", "16:9": "Yatay" },
});

/** The shipped tracks' moods in Turkish; a mood of a track from VITRIN_MUSIC_DIRS stays as its file says. */
const TR_MOODS: Record<string, string> = { energetic: "enerjik", calm: "sakin", warm: "sıcak", upbeat: "neşeli", minimal: "sade", cinematic: "sinematik" };

/** The music select's options: automatic, none, then every track with its mood in the UI's language. */
function musicChoices(music: Choices["music"], lang: string, t: ReturnType<typeof useT>) {
  const mood = (m: string) => (lang === "tr" ? (TR_MOODS[m] ?? m) : m);
  return [
    { value: "auto", label: t("videoNew.autoMusic") },
    { value: "none", label: t("common.none") },
    ...music.map((track) => ({ value: track.id, label: `${track.title} (${mood(track.mood)})` })),
  ];
}

/** The account's language, which a video takes when none is chosen (null when it cannot be read). */
async function loadAccountLanguage(): Promise<string | null> {
  const { data } = await api.GET("/v1/balance");
  return data?.language ?? null;
}

/** The Language select's options: the account's (named when known), then each language the template speaks. */
function languageChoices(languages: string[], accountLanguage: string | null, lang: string, t: ReturnType<typeof useT>) {
  const account = accountLanguage ? t("videoNew.accountLanguageIs", { language: languageName(accountLanguage, lang) }) : t("videoNew.accountLanguage");
  return [{ value: "", label: account }, ...languages.map((l) => ({ value: l, label: languageName(l, lang) }))];
}

/** Everything the form needs before it can show: products, templates, music tracks and the account's language. */
async function loadChoices() {
  const [products, templates, music, accountLanguage] = await Promise.all([
    loadProducts(),
    loadTemplates(),
    loadMusic().catch(() => []),
    loadAccountLanguage().catch(() => null),
  ]);
  return { products, templates, music, accountLanguage };
}

type Choices = Awaited<ReturnType<typeof loadChoices>>;

/** What earlier pages of this visit loaded already: the form shows at once with it, then refreshes. */
function seenChoices(): Choices | null {
  const products = productsSeen();
  const seen = choicesSeen();
  return products && seen ? { products, ...seen, accountLanguage: null } : null;
}

/** The product a form opened without one starts on: the one last worked on (when it still exists), else the first. */
function startProduct(products: { id: string }[], account: string | null): string {
  const store = tabStorage();
  const last = store && account ? lastDraftProduct(store, account) : null;
  return products.find((p) => p.id === last)?.id ?? products[0]?.id ?? "";
}

/**
 * Keeps the form as the product's draft (per account, in the tab's sessionStorage) once the customer changed
 * something, and puts a product's draft back when it is shown: on opening the form, or on choosing another product
 * (one without a draft keeps the fields as they are, now its draft).
 */
function useKeptDraft(account: string | null, productId: string, choices: Choices | null, kept: Draft | null, restore: (d: Draft) => void) {
  const store = tabStorage();
  // The product whose draft was looked for: saving waits for that, so the fields of the one before never overwrite it.
  const lookedFor = useRef("");
  // Before the browser paints or takes a click: a choice made on the form as it appears is never undone by its draft.
  useLayoutEffect(() => {
    if (!choices || !productId || lookedFor.current === productId) return;
    lookedFor.current = productId;
    const draft = store && account ? loadDraft(store, account, productId) : null;
    if (draft) restore(fitDraft(draft, { templates: choices.templates, music: choices.music, formats: FORMATS }));
  }, [choices, productId]);
  useEffect(() => {
    if (kept && store && account && productId && lookedFor.current === productId) saveDraft(store, account, productId, kept);
  }, [JSON.stringify(kept), productId]);
}

/** The form's state and the request it makes; the signed-in account keeps its draft. */
function useVideoForm(choices: Choices | null, initialProduct: string) {
  const account = useSession().session?.account?.id ?? null;
  const [productId, setProductId] = useState(initialProduct);
  const [templateId, setTemplateId] = useState("");
  const [language, setLanguage] = useState("");
  const [format, setFormat] = useState<Format>("9:16");
  // Whether the customer picked the format: a template then no longer moves it to the template's own.
  const [formatPicked, setFormatPicked] = useState(false);
  const [music, setMusic] = useState("auto");
  const [values, setValues] = useState<Values>({});
  // Whether the customer changed anything: only then is there a draft to keep.
  const [touched, setTouched] = useState(false);
  // A template starts in its own format (the one its gallery picture shows), until the customer picks one: that choice
  // stays through every template after (each composes all four). Applied where the template is chosen (the default
  // here, the customer's choice below), never by an effect on the template: one would run after a draft's restore
  // with the render before it, and put the default template's format over the draft's.
  const chooseTemplate = (id: string, picked: boolean) => {
    setTemplateId(id);
    const aspect = choices?.templates.find((t) => t.id === id)?.aspect;
    if (!picked && aspect && (FORMATS as readonly string[]).includes(aspect)) setFormat(aspect as Format);
  };
  useLayoutEffect(() => {
    if (!choices) return;
    if (!productId && choices.products.length > 0) setProductId(startProduct(choices.products, account));
    if (!templateId && choices.templates.length > 0) chooseTemplate(choices.templates.find((t) => !t.premium)?.id ?? choices.templates[0]!.id, formatPicked);
  }, [choices]);
  const kept = touched ? { templateId, language, format, formatPicked, music, values } : null;
  useKeptDraft(account, productId, choices, kept, (draft) => {
    if (draft.templateId) setTemplateId(draft.templateId);
    setLanguage(draft.language);
    setFormat(draft.format as Format);
    setFormatPicked(draft.formatPicked);
    setMusic(draft.music);
    setValues(draft.values);
  });
  const template = choices?.templates.find((t) => t.id === templateId) ?? null;
  // Every change the customer makes goes through here: it makes the form a draft worth keeping.
  const touch = <T,>(set: (value: T) => void) => (value: T) => {
    setTouched(true);
    set(value);
  };
  const pickFormat = (f: Format) => {
    setFormatPicked(true);
    setFormat(f);
  };
  const schema = (template?.prompt_schema ?? null) as Schema | null;
  const request = useMemo<VideoRequest | null>(() => {
    if (!productId || !templateId) return null;
    const body: VideoRequest = { product_id: productId, template_id: templateId, user_prompt: buildPrompt(schema, values), music };
    if (language) body.language = language;
    body.aspect_ratio = format;
    return body;
  }, [productId, templateId, schema, values, language, format, music]);
  return {
    state: { productId, templateId, language, format, music, values },
    set: {
      setProductId: touch(setProductId),
      setTemplateId: touch((id: string) => chooseTemplate(id, formatPicked)),
      setLanguage: touch(setLanguage),
      setFormat: touch(pickFormat),
      setMusic: touch(setMusic),
      setValue: (path: string, v: string) => {
        setTouched(true);
        setValues((old) => ({ ...old, [path]: v }));
      },
    },
    template,
    schema,
    request,
    /** The video is created: its draft goes. */
    forget: () => {
      const store = tabStorage();
      if (store && account && productId) clearDraft(store, account, productId);
    },
  };
}

/** The fields the form shows itself (so other 422 problems go in the alert at the top). */
function shownFields(schema: Schema | null, prefix = "user_prompt"): string[] {
  const out = ["product_id", "template_id", "language", "aspect_ratio", "music"];
  const walk = (s: Schema | null, at: string) => {
    for (const [name, field] of Object.entries(s?.properties ?? {})) {
      if (field.type === "object" && field.properties) walk(field, `${at}.${name}`);
      else out.push(`${at}.${name}`);
    }
  };
  walk(schema, prefix);
  return out;
}

export function VideoNewPage() {
  const t = useT();
  const m = useFormatNames();
  const { lang } = useLang();
  const { query, route } = useLocation();
  const choices = useLoad(loadChoices, [], seenChoices());
  const form = useVideoForm(choices.data, query.product ?? "");
  const estimate = useEstimate(form.request);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, problem);
  // A refusal with no field to point at (too few credits, a premium template) is said at the top of a long form:
  // focus goes there, so it is seen and read out, not left above a page scrolled to the button.
  const problemRef = useFocusOnMessage<HTMLDivElement>(problem && !problem.details?.length ? problem : null);
  // A 422 from the last submit, else from the live estimate: both point at the same fields.
  const errors = fieldErrors(problem ?? estimate.problem);
  // What the server would refuse (too few credits, a premium template on a Standard account) holds the button back.
  const { short, locked, describedBy } = useHoldBack(form.template, estimate);
  const { state, set } = form;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!form.request || short || locked) return;
    setBusy(true);
    setProblem(null);
    try {
      const { data, error } = await api.POST("/v1/videos", { body: form.request });
      if (error || !data) return setProblem(asProblem(error) ?? { error: "Error", code: "unknown", message: t("common.error") });
      form.forget();
      route(`/videos/${data.id}`);
    } catch {
      setProblem({ error: "Error", code: "network", message: t("common.network") });
    } finally {
      setBusy(false);
    }
  };

  const back = (
    <a href="/videos">
      <BackIcon size={16} />{t("video.back")}
    </a>
  );
  if (choices.loading && !choices.data) return <Loading />;
  if (choices.error || !choices.data) {
    return (
      <Page title={t("videoNew.title")} back={back}>
        <Alert tone="error">{choices.error ?? t("common.error")}</Alert>
      </Page>
    );
  }
  if (choices.data.products.length === 0) {
    return (
      <Page title={t("videoNew.title")} back={back}>
        <Alert tone="info">{t("videoNew.noProducts")}</Alert>
        <LinkButton href="/products" variant="primary">{t("nav.products")}</LinkButton>
      </Page>
    );
  }
  const { products, templates, music, accountLanguage } = choices.data;
  // The language the video will have: the one chosen, else the account's (what the gallery's pictures speak).
  const videoLanguage = state.language || accountLanguage || lang;
  const other = problem ? unplacedErrors(errors, shownFields(form.schema)) : [];
  const productOptions = products.map((p) => ({ value: p.id, label: p.name }));
  const languageOptions = languageChoices(form.template?.languages ?? [], accountLanguage, lang, t);
  const formatOptions = FORMATS.map((f) => ({ value: f, label: `${f} · ${m(f)}` }));
  const musicOptions = musicChoices(music, lang, t);
  return (
    <Page title={t("videoNew.title")} back={back}>
      <form ref={formRef} class="form video-form" onSubmit={submit} noValidate>
        <div ref={problemRef} tabIndex={-1}>
          {problem && (problem.details?.length ? <AlertList title={t("videoNew.fixErrors")} items={other} /> : <Alert tone="error">{problem.message}</Alert>)}
        </div>
        <SelectField label={t("videoNew.product")} name="product" value={state.productId} onValue={set.setProductId} error={fieldError(errors, "product_id")} options={productOptions} />
        <TemplateGallery templates={templates} language={videoLanguage} value={state.templateId} onChange={set.setTemplateId} error={fieldError(errors, "template_id")} />
        {form.schema?.properties && Object.keys(form.schema.properties).length > 0 && (
          <fieldset>
            <legend>{t("videoNew.fields")}</legend>
            <div class="form">
              <PromptFields schema={form.schema} values={state.values} errors={errors} onChange={set.setValue} />
            </div>
          </fieldset>
        )}
        <div class="form-row">
          <SelectField label={t("videoNew.language")} name="language" value={state.language} onValue={set.setLanguage} error={fieldError(errors, "language")} options={languageOptions} />
          <SelectField label={t("videoNew.format")} name="format" value={state.format} onValue={(v) => set.setFormat(v as Format)} error={fieldError(errors, "aspect_ratio")} options={formatOptions} />
          <SelectField label={t("videoNew.music")} name="music" value={state.music} onValue={set.setMusic} error={fieldError(errors, "music")} options={musicOptions} />
        </div>
        <FramePreview request={form.request} />
        <Estimate state={estimate} quiet={locked} />
        <div class="row">
          <Button type="submit" variant="primary" busy={busy} disabled={!form.request || short || locked} aria-describedby={describedBy}>
            {t("videoNew.submit")}
          </Button>
          <CreditsShort id="credits-short" state={estimate} />
          <PremiumNeeded id="premium-needed" template={locked ? form.template : null} />
        </div>
      </form>
    </Page>
  );
}
