// Sign-in: an API token (an account's, or the operator's admin token) starts a cookie session; a login link that
// failed lands here with ?link=invalid and a message saying so.
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { TextField } from "../components/field";
import { Page } from "../components/page";
import { useT } from "../i18n";
import { signIn, useSession } from "../session";
import { homeOf } from "../home";

export function SignInPage() {
  const t = useT();
  const { query, route } = useLocation();
  const { set } = useSession();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await signIn(token.trim());
      if (!result.ok) {
        setError(result.problem.code === "unauthorized" ? t("signIn.wrong") : result.problem.message);
        return;
      }
      setToken("");
      set(result.session);
      route(homeOf(result.session), true);
    } catch {
      setError(t("common.network"));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title={t("signIn.title")}>
      <div class="card sign-in">
        <p>{t("signIn.intro")}</p>
        {query.link === "invalid" && <Alert tone="warning">{t("signIn.linkInvalid")}</Alert>}
        <form class="form" onSubmit={submit} noValidate>
          <TextField
            label={t("signIn.token")}
            type="password"
            name="token"
            autoComplete="off"
            spellcheck={false}
            required
            value={token}
            onValue={setToken}
            hint={t("signIn.hint")}
            error={error ?? undefined}
          />
          <div>
            <Button type="submit" variant="primary" busy={busy} disabled={token.trim() === ""}>
              {t("signIn.submit")}
            </Button>
          </div>
        </form>
      </div>
    </Page>
  );
}
