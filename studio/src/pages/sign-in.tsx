// Placeholder for the sign-in page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function SignInPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("signIn.title")} />;
}
