// The manual provider's payment page, which vitrin serves: the operator's own words on how to pay
// (VITRIN_MANUAL_PAYMENT_INSTRUCTIONS) while the top-up waits, and the language Studio opened it in, else the browser's.
import { afterEach, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(() => t?.close());

const topUp = (token: string, body: unknown) => t.json("POST", "/v1/balance/top-up", { token, body });

test("the payment page shows the operator's instructions (escaped, in lines and paragraphs) while the top-up waits", async () => {
  t = await startService({ VITRIN_MANUAL_PAYMENT_INSTRUCTIONS: "Bank: Example Bank <EU>\\nIBAN: DE00 1234\\n\\nQuestions: pay@shop.example" });
  const a = await t.newAccount();
  const res = await topUp(a.token, { amount: 1000, currency: "eur" });
  const path = new URL(res.body.payment_url).pathname;
  const html = await (await t.call("GET", path)).text();
  expect(html).toContain("€10.00 as below");
  expect(html).toContain('<div class="instructions"><p>Bank: Example Bank &#60;EU&#62;<br>IBAN: DE00 1234</p><p>Questions: pay@shop.example</p></div>');
  // The language Studio asks for comes before the browser's.
  const turkish = await (await t.call("GET", `${path}?lang=tr`, { headers: { "accept-language": "en" } })).text();
  expect(turkish).toContain('<html lang="tr">');
  expect(turkish).toContain("aşağıdaki gibi");
  // Once paid, the page says so and no longer asks for money.
  await t.json("POST", `/v1/admin/top-ups/${res.body.id}/complete`, { token: ADMIN_TOKEN });
  expect(await (await t.call("GET", path)).text()).not.toContain("IBAN");
});

test("without instructions the page asks for payment as agreed with the operator, and shows no instructions box", async () => {
  t = await startService();
  const a = await t.newAccount();
  const res = await topUp(a.token, { amount: 1000, currency: "eur" });
  const html = await (await t.call("GET", new URL(res.body.payment_url).pathname)).text();
  expect(html).toContain("as agreed with the operator");
  expect(html).not.toContain('class="instructions"');
  expect(html).not.toContain("(unset)");
});

test("a link opened without ?lang= follows the browser's Accept-Language by q-value, q=0 refusing, English otherwise", async () => {
  t = await startService();
  const a = await t.newAccount();
  const path = new URL((await topUp(a.token, { amount: 1000, currency: "eur" })).body.payment_url).pathname;
  const langOf = async (header: string | null) => {
    const html = await (await t.call("GET", path, header === null ? {} : { headers: { "accept-language": header } })).text();
    return /<html lang="(\w+)">/.exec(html)?.[1];
  };
  const cases: [string | null, string][] = [
    [null, "en"],
    ["de-DE,fr;q=0.9", "en"],
    ["en;q=0.5, tr;q=0.8", "tr"],
    ["tr;q=0.7, en", "en"],
    ["en, tr", "en"],
    ["tr, en", "tr"],
    ["fr, tr ; q=0.5", "tr"],
    ["tr;q=0", "en"],
    ["tr;q=0, en;q=0.1", "en"],
    ["tr;q=abc", "en"],
  ];
  const got = [];
  for (const [header] of cases) got.push([header, await langOf(header)]);
  expect(got).toEqual(cases);
});
