// The Studio's own words for the API's error catalogue (src/kernel/errors.ts), in each interface language, so a Turkish
// page does not show the server's English; a code it does not know keeps the server's message.
import { format, type Lang, type Vars } from "./format";

/**
 * A catalogue code, or `code.extra` where one code covers several cases told apart by an extra field of the body.
 * English null: the server's own message is already the best English (it names what was not found or what clashed).
 */
const en = {
  bad_request: null,
  unauthorized: "The session has ended or the token is not valid. Sign in again.",
  insufficient_credits: "This needs {required} {required|credit|credits}, but the balance is {available}.",
  product_limit_reached: "An account can hold at most {max_allowed} products; delete one before adding another.",
  csrf_failed: "This page's session is out of date. Reload the page and try again.",
  forbidden: null,
  not_found: null,
  admin_api_disabled: "The operator pages are off on this instance: VITRIN_ADMIN_TOKEN is not set.",
  worker_instance: "This instance only runs jobs; open the Studio on an instance that serves the API.",
  route_not_found: null,
  method_not_allowed: null,
  previews_not_supported: "This instance's renderer makes no template previews.",
  conflict: null,
  "conflict.idempotency_key": null,
  "conflict.dekupe_status": "A background removal is already running for this product; wait for it to finish.",
  "conflict.retries_left": "All background removal retries are used up; revert to the original photo or upload a new one.",
  "conflict.video_status": "The video has not finished yet; its files can be deleted once it has completed or failed.",
  file_too_large: "The image is larger than {max_mb} MB.",
  body_too_large: "The request is larger than {max_mb} MB.",
  unsupported_image_format: "The image must be a JPG, PNG or WebP file.",
  validation_failed: "Some values are not valid; see the marked fields.",
  unsupported_language: "This language is not supported; choose one of {supported}.",
  rate_limited: "Too many requests; try again in {retry_after} s.",
  internal_error: "Something went wrong on the server. If it happens again, give the operator this request id: {request_id}.",
  unavailable: null,
  database_busy: "The database is busy; nothing was changed. Try again in {retry_after} s.",
  insufficient_storage: "The server's disk is full and nothing was kept. Try again once the operator has freed space.",
  // Why a video failed (the video's `error.code`, src/videos): the server's English says it exactly.
  product_missing: null,
  product_image_missing: null,
  dekupe_timeout: null,
  render_timeout: null,
  render_failed: null,
  // Why a cut-out attempt failed (dekupe.error_code, src/products/dekupe-errors.ts), under "dekupe." so they stay
  // apart from the catalogue's codes. removal_failed: the server's English names the plugin's reason.
  "forbidden.premium": "This template is for premium accounts. Choose another template, or ask for a premium account.",
  "dekupe.image_missing": "The original photo is missing from storage; create the product again with its photo.",
  "dekupe.no_subject": "No product was found to cut out. Mark the product on the photo and retry, or upload another photo.",
  "dekupe.empty_matte": "The cut-out came out empty. Mark the product on the photo and retry.",
  "dekupe.removal_failed": null,
  "dekupe.image_changing": "The photo was replaced again and again while it was being cut out; retry once it stays the same.",
  "dekupe.did_not_finish": "The cut-out did not finish in time; retry it.",
} satisfies Record<string, string | null>;

type ErrorKey = keyof typeof en;

const tr: Record<ErrorKey, string> = {
  bad_request: "İstek anlaşılamadı. Sayfayı yenileyip yeniden deneyin.",
  unauthorized: "Oturum sona erdi ya da anahtar geçerli değil. Yeniden giriş yapın.",
  insufficient_credits: "Bunun için {required} kredi gerekiyor, bakiye ise {available}.",
  product_limit_reached: "Bir hesapta en fazla {max_allowed} ürün olabilir; yenisini eklemeden önce birini silin.",
  csrf_failed: "Bu sayfanın oturum bilgisi eskimiş. Sayfayı yenileyip yeniden deneyin.",
  forbidden: "Bu hesap bunu yapamaz (örneğin premium bir şablon ya da bir sınırın üstü).",
  "forbidden.premium": "Bu şablon premium hesaplar için. Başka bir şablon seçin ya da premium hesap isteyin.",
  not_found: "Bulunamadı; silinmiş olabilir.",
  admin_api_disabled: "Bu kurulumda yönetici sayfaları kapalı: VITRIN_ADMIN_TOKEN ayarlı değil.",
  worker_instance: "Bu sunucu yalnızca işleri çalıştırıyor; Studio'yu API'yi sunan bir sunucuda açın.",
  route_not_found: "Böyle bir adres yok.",
  method_not_allowed: "Bu adreste bu işlem yapılamaz.",
  previews_not_supported: "Bu kurulumun video oluşturucusu şablon önizlemesi yapmıyor.",
  conflict: "Bu işlem şu anki durumda yapılamıyor. Sayfayı yenileyip yeniden deneyin.",
  "conflict.idempotency_key": "Bu istek zaten gönderildi ya da hâlâ işleniyor; biraz sonra yeniden deneyin.",
  "conflict.dekupe_status": "Bu ürün için arka plan kaldırma zaten sürüyor; bitmesini bekleyin.",
  "conflict.retries_left": "Arka plan kaldırma denemelerinin hepsi kullanıldı; özgün fotoğrafa dönün ya da yenisini yükleyin.",
  "conflict.video_status": "Video henüz bitmedi; dosyaları video tamamlandığında ya da başarısız olduğunda silinebilir.",
  file_too_large: "Görsel {max_mb} MB'tan büyük.",
  body_too_large: "İstek {max_mb} MB'tan büyük.",
  unsupported_image_format: "Görsel JPG, PNG ya da WebP dosyası olmalı.",
  validation_failed: "Bazı değerler geçerli değil; işaretli alanlara bakın.",
  unsupported_language: "Bu dil desteklenmiyor; şunlardan birini seçin: {supported}.",
  rate_limited: "Çok fazla istek; {retry_after} sn sonra yeniden deneyin.",
  internal_error: "Sunucuda bir sorun çıktı. Yeniden olursa yöneticiye şu istek numarasını verin: {request_id}.",
  unavailable: "Hizmet şu anda kullanılamıyor; biraz sonra yeniden deneyin.",
  database_busy: "Veritabanı meşgul; hiçbir şey değişmedi. {retry_after} sn sonra yeniden deneyin.",
  insufficient_storage: "Sunucunun diski dolu, hiçbir şey kaydedilmedi. Yönetici yer açınca yeniden deneyin.",
  product_missing: "Ürün, videosu yapılmadan önce silindi.",
  product_image_missing: "Ürünün görseli depoda bulunamadı.",
  dekupe_timeout: "Ürünün dekupesi zamanında hazır olmadı.",
  render_timeout: "Video oluşturma çok uzun sürdü ve durduruldu.",
  render_failed: "Video oluşturulurken bir hata oluştu.",
  "dekupe.image_missing": "Özgün fotoğraf depoda bulunamadı; ürünü fotoğrafıyla yeniden oluşturun.",
  "dekupe.no_subject": "Dekupe edilecek bir ürün bulunamadı. Fotoğrafta ürünü işaretleyip yeniden deneyin ya da başka bir fotoğraf yükleyin.",
  "dekupe.empty_matte": "Dekupe boş çıktı. Fotoğrafta ürünü işaretleyip yeniden deneyin.",
  "dekupe.removal_failed": "Arka plan kaldırılırken bir hata oluştu. Yeniden deneyin; sürerse yöneticiye haber verin.",
  "dekupe.image_changing": "Fotoğraf dekupe sırasında defalarca değiştirildi; fotoğraf artık değişmiyorsa yeniden deneyin.",
  "dekupe.did_not_finish": "Dekupe zamanında bitmedi; yeniden deneyin.",
};

const dictionaries: Record<Lang, Record<ErrorKey, string | null>> = { en, tr };

/** The extra fields that tell one `conflict` from another, in the order they are looked for. */
const CONFLICT_CASES = ["idempotency_key", "dekupe_status", "retries_left", "video_status"] as const;

type Body = { code: string; message: string; [extra: string]: unknown };

function keyOf(body: Body): ErrorKey | null {
  // A premium template is the one refusal of its code the Studio can name exactly (the other is the endpoint limit).
  if (body.code === "forbidden" && /needs a premium account/.test(body.message)) return "forbidden.premium";
  if (body.code === "conflict") {
    const extra = CONFLICT_CASES.find((name) => body[name] !== undefined);
    return extra ? `conflict.${extra}` : "conflict";
  }
  return body.code in en ? (body.code as ErrorKey) : null;
}

/** The body's extra fields as the texts name them (sizes in MB, lists joined). */
function varsOf(body: Body): Vars {
  const vars: Vars = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === "number" || typeof value === "string") vars[name] = value;
  }
  if (typeof body.max_size === "number") vars.max_mb = Math.round((body.max_size / (1024 * 1024)) * 10) / 10;
  if (Array.isArray(body.supported_languages)) vars.supported = body.supported_languages.join(", ");
  return vars;
}

/** What the Studio says for a catalogue error body in `lang`: its own text for a known code, else the server's message. */
export function problemText(body: Body, lang: Lang): string {
  const key = keyOf(body);
  const template = key ? dictionaries[lang][key] : null;
  if (!template) return body.message;
  const text = format(template, varsOf(body), lang);
  // A value the body lacked would show as `{name}`: the server's message then says it better.
  return /\{\w+[|}]/.test(text) ? body.message : text;
}

/** Why a cut-out attempt failed, in `lang`: the Studio's text for its code, else the server's message. */
export function dekupeErrorText(code: string | null | undefined, message: string | null | undefined, lang: Lang): string | null {
  if (!code && !message) return null;
  return problemText({ code: code ? `dekupe.${code}` : "", message: message ?? code ?? "" }, lang);
}

/**
 * The schema checker's field messages (TypeBox's English, plus the API's own common ones) in Turkish; anything else,
 * and everything in English, stays as the API wrote it.
 */
const trFieldMessages: [RegExp, string][] = [
  [/^Expected required property$/, "Bu alan gerekli."],
  [/^Expected string length less or equal to (\d+)$/, "En fazla $1 karakter olabilir."],
  [/^Expected string length greater or equal to (\d+)$/, "En az $1 karakter olmalı."],
  [/^Expected (?:number|integer) to be greater or equal to (-?[\d.]+)$/, "En az $1 olmalı."],
  [/^Expected (?:number|integer) to be less or equal to (-?[\d.]+)$/, "En fazla $1 olabilir."],
  [/^Expected (?:number|integer) to be greater than (-?[\d.]+)$/, "$1'den büyük olmalı."],
  [/^Expected (?:number|integer) to be less than (-?[\d.]+)$/, "$1'den küçük olmalı."],
  [/^Expected string$/, "Metin olmalı."],
  [/^Expected number$/, "Sayı olmalı."],
  [/^Expected integer$/, "Tam sayı olmalı."],
  [/^Expected boolean$/, "Evet ya da hayır olmalı."],
  [/^Expected string to match '[^']*' format$/, "Biçimi geçerli değil."],
  [/^Expected union value$/, "Geçerli bir değer değil."],
  [/^must be one of (.+)$/, "Şunlardan biri olmalı: $1."],
  [/^is not a known field$/, "Bilinmeyen bir alan."],
  [/^must be an http or https URL$/, "http ya da https ile başlayan bir adres olmalı."],
  [/^must be an http or https URL, or a data: URL$/, "http ya da https ile başlayan bir adres ya da bir data: adresi olmalı."],
  [/^is not a valid URL$/, "Geçerli bir adres değil."],
  [/^is not a readable image: the file is truncated or corrupt$/, "Okunabilir bir görsel değil: dosya eksik ya da bozuk."],
  // The API's plain wordings (src/http/validation-messages.ts) and the outbound URL checks (src/net/check.ts).
  [/^must be at most (\d+) characters?$/, "En fazla $1 karakter olabilir."],
  [/^must be at least (\d+) characters?$/, "En az $1 karakter olmalı."],
  [/^must not be empty$/, "Boş olamaz."],
  [/^must not be blank$/, "Boş bırakılamaz."],
  [/^must be a whole number$/, "Tam sayı olmalı."],
  [/^is required$/, "Bu alan gerekli."],
  [/^must be a string$/, "Metin olmalı."],
  [/^must be a number$/, "Sayı olmalı."],
  [/^must be true or false$/, "Evet ya da hayır olmalı."],
  [/^must be an object$/, "Bir nesne olmalı."],
  [/^must be an array$/, "Bir liste olmalı."],
  [/^must be at least (-?[\d.]+)$/, "En az $1 olmalı."],
  [/^must be at most (-?[\d.]+)$/, "En fazla $1 olabilir."],
  [/^must be more than (-?[\d.]+)$/, "$1'den büyük olmalı."],
  [/^must be less than (-?[\d.]+)$/, "$1'den küçük olmalı."],
  [/^is not a known query parameter$/, "Bilinmeyen bir sorgu parametresi."],
  [/^must be a number from 0 to (\d+), or a text of 1 to (\d+) characters$/, "0 ile $1 arasında bir sayı ya da en fazla $2 karakterlik bir metin olmalı."],
  // A template's old price beside its price (src/templates/registry.ts).
  [/^must be more than price \(([^)]+)\): it is the price before the discount$/, "Fiyattan ($1) yüksek olmalı: indirimden önceki fiyattır."],
  [/^needs price beside it: .*$/, "Fiyat da girilmeli: eski fiyat, indirimli fiyatın yanında üstü çizili gösterilir."],
  [/^give at least one field to change$/, "Değiştirilecek en az bir alan verin."],
  [/^must be a file$/, "Bir dosya olmalı."],
  [/^must be a lowercase three-letter currency code, like usd$/, "Küçük harfli, üç harfli bir para birimi kodu olmalı (ör. usd)."],
  [/^must be a URL or null$/, "Bir adres ya da boş olmalı."],
  [/^must be a colour like #[0-9a-fA-F]{6}$/, "#1a2b3c gibi bir renk olmalı."],
  [/^points to a private, local or reserved network address, which is not allowed\b.*$/, "Özel, yerel ya da ayrılmış bir ağ adresine gidiyor; buna izin verilmiyor (sunucunun yöneticisi izin verebilir)."],
  [/^has a host name that could not be resolved$/, "Alan adı çözümlenemedi."],
];

/** One field's message in `lang` (see trFieldMessages). */
export function fieldText(message: string, lang: Lang): string {
  if (lang !== "tr") return message;
  for (const [pattern, text] of trFieldMessages) if (pattern.test(message)) return message.replace(pattern, text);
  return message;
}
