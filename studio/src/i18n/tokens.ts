// Strings of the API token manager that the Developers page and the operator's account page share (English and
// Turkish; the tr object must have exactly en's keys).
import { defineMessages } from "./index";

const en = {
  tokens: "API tokens",
  tokenName: "Token name",
  createToken: "Create token",
  hideToken: "Hide token",
  name: "Name",
  unnamed: "(unnamed)",
  token: "Token",
  created: "Created",
  lastUsed: "Last used",
  never: "Never",
  id: "Id",
  actions: "Actions",
  revoke: "Revoke",
  revokeLabel: "Revoke token {name} ({hint})",
  revokeTitle: "Revoke token {name}?",
  revokeText: "Requests with token {name} ({hint}) are refused from now on, and the Studio sessions it started end. This cannot be undone.",
  revoked: "Token {name} was revoked.",
  ownToken: "You signed in to Studio with this token: revoking it signs you out, and you need another token or a login link to sign in again.",
  yours: "this session",
};

const tr: Record<keyof typeof en, string> = {
  tokens: "API anahtarları",
  tokenName: "Anahtar adı",
  createToken: "Anahtar oluştur",
  hideToken: "Anahtarı gizle",
  name: "Ad",
  unnamed: "(adsız)",
  token: "Anahtar",
  created: "Oluşturulma",
  lastUsed: "Son kullanım",
  never: "Hiç kullanılmadı",
  id: "Kimlik",
  actions: "İşlemler",
  revoke: "Geçersiz kıl",
  revokeLabel: "Geçersiz kıl: {name} ({hint}) anahtarı",
  revokeTitle: "{name} anahtarı geçersiz kılınsın mı?",
  revokeText: "{name} ({hint}) anahtarıyla yapılan istekler bundan sonra reddedilir ve onunla açılan Stüdyo oturumları kapanır. Bu geri alınamaz.",
  revoked: "{name} anahtarı geçersiz kılındı.",
  ownToken: "Stüdyo'ya bu anahtarla girdiniz: geçersiz kılarsanız oturumunuz kapanır; yeniden girmek için başka bir anahtar ya da giriş bağlantısı gerekir.",
  yours: "bu oturum",
};

export const useTokenMessages = defineMessages({ en, tr });
