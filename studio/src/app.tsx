// The Studio shell: reads the session, then the header (navigation, language switch, Sign out), the skip link, <main>
// and the router with every Studio route; without a session every page but /sign-in sends the visitor to sign in.
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { setUnauthorizedHandler } from "./api";
import { Loading } from "./components/spinner";
import { LogoIcon } from "./components/icons";
import { LangContext, LANGS, initialLang, saveLang, useLang, useT, type Lang } from "./i18n";
import { SessionContext, loadSession, signOut, useSession, type Session } from "./session";
import { wantHeadingFocus } from "./focus";
import { homeOf } from "./home";
import { SignInPage } from "./pages/sign-in";
import { ProductsPage } from "./pages/products";
import { ProductPage } from "./pages/product";
import { VideosPage } from "./pages/videos";
import { VideoNewPage } from "./pages/video-new";
import { VideoPage } from "./pages/video";
import { BalancePage } from "./pages/balance";
import { DevelopersPage } from "./pages/developers";
import { AdminHomePage } from "./pages/admin-home";
import { AdminAccountsPage } from "./pages/admin-accounts";
import { AdminAccountPage } from "./pages/admin-account";
import { AdminJobsPage } from "./pages/admin-jobs";
import { NotFoundPage } from "./pages/not-found";

/** Links the in-app router handles; anything else (/files downloads, /docs) is an ordinary page load. */
const STUDIO_LINKS = /^\/(?:$|\?|sign-in|products|videos|balance|developers|admin)/;

function LanguageSwitch() {
  const t = useT();
  const { lang, setLang } = useLang();
  return (
    <div class="lang-switch" role="group" aria-label={t("lang.label")}>
      {LANGS.map((code) => (
        <button key={code} type="button" lang={code} aria-pressed={lang === code} onClick={() => setLang(code)}>
          {t(`lang.${code}`)}
        </button>
      ))}
    </div>
  );
}

function NavLinks({ session }: { session: Session }) {
  const t = useT();
  const { path } = useLocation();
  const links =
    session.kind === "admin"
      ? [
          { href: "/admin/accounts", label: t("nav.accounts") },
          { href: "/admin/jobs", label: t("nav.jobs") },
          { href: "/admin", label: t("nav.health") },
        ]
      : [
          { href: "/products", label: t("nav.products") },
          { href: "/videos", label: t("nav.videos") },
          { href: "/balance", label: t("nav.balance") },
          { href: "/developers", label: t("nav.developers") },
        ];
  const current = (href: string) => path === href || (href !== "/admin" && path.startsWith(`${href}/`));
  return (
    <nav class="nav" aria-label={t("nav.label")}>
      <ul>
        {links.map((l) => (
          <li key={l.href}>
            <a href={l.href} aria-current={current(l.href) ? "page" : undefined}>
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Header() {
  const t = useT();
  const { session, set } = useSession();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const leave = async () => {
    setBusy(true);
    try {
      await signOut();
    } finally {
      setBusy(false);
      set(null);
      route("/sign-in");
    }
  };
  return (
    <header class="header">
      <a class="skip-link" href="#main">
        {t("app.skip")}
      </a>
      <div class="header-row">
        <a class="brand" href={homeOf(session)}>
          <LogoIcon />
          <span>{t("app.name")}</span>
        </a>
        <LanguageSwitch />
        {session && (
          <button type="button" class="btn btn-ghost sign-out" onClick={leave} disabled={busy}>
            {t("nav.signOut")}
          </button>
        )}
      </div>
      {session && <NavLinks session={session} />}
    </header>
  );
}

/** Sends a visitor without a session to /sign-in and a signed-in one away from it; `/` goes to the home page. */
function Guard() {
  const { session } = useSession();
  const { path, route } = useLocation();
  useEffect(() => {
    if (!session && path !== "/sign-in") route("/sign-in", true);
    else if (session && path === "/") route(homeOf(session), true);
  }, [session, path]);
  return null;
}

function Routes() {
  const main = useRef<HTMLElement>(null);
  // After an in-app navigation focus goes to <main>, and to the new page's heading once it shows (Page), so keyboard
  // and screen-reader users start at the new page. The link they used is often gone with the old page, so the focus
  // may be on <body> by now: that is no reason to leave it there. (The router calls this for changes only, never for
  // the first page of a visit.)
  const moved = (url: string) => {
    if (!url || !main.current) return;
    wantHeadingFocus();
    main.current.focus({ preventScroll: true });
  };
  return (
    <main id="main" ref={main} tabIndex={-1} class="main">
      <Guard />
      <Router onRouteChange={moved}>
        <Route path="/" component={Loading} />
        <Route path="/sign-in" component={SignInPage} />
        <Route path="/products" component={ProductsPage} />
        <Route path="/products/:id" component={ProductPage} />
        <Route path="/videos" component={VideosPage} />
        <Route path="/videos/new" component={VideoNewPage} />
        <Route path="/videos/:id" component={VideoPage} />
        <Route path="/balance" component={BalancePage} />
        <Route path="/developers" component={DevelopersPage} />
        <Route path="/admin" component={AdminHomePage} />
        <Route path="/admin/accounts" component={AdminAccountsPage} />
        <Route path="/admin/accounts/:id" component={AdminAccountPage} />
        <Route path="/admin/jobs" component={AdminJobsPage} />
        <Route default component={NotFoundPage} />
      </Router>
    </main>
  );
}

function Shell() {
  const { route } = useLocation();
  const { set } = useSession();
  useEffect(() => {
    // The API said 401: the session ended (expired, signed out elsewhere); forget it and ask to sign in again.
    setUnauthorizedHandler(() => {
      set(null);
      route("/sign-in");
    });
  }, []);
  return (
    <>
      <Header />
      <Routes />
    </>
  );
}

/** When even the session could not be read (the service is down or unreachable): say so, offer a reload. */
function BootFailure({ message }: { message: string }) {
  const t = useT();
  return (
    <main id="main" class="main">
      <h1>{t("common.error")}</h1>
      <p role="alert" class="alert alert-error">
        {t("common.network")} ({message})
      </p>
      <button type="button" class="btn btn-primary" onClick={() => location.reload()}>
        {t("common.retry")}
      </button>
    </main>
  );
}

export function App() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const [session, setSession] = useState<Session | null>(null);
  const [ready, setReady] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    document.documentElement.lang = lang;
    loadSession()
      .then(setSession)
      .catch((e) => setFailure(e instanceof Error ? e.message : String(e)))
      .finally(() => setReady(true));
  }, []);
  const langState = useMemo(() => ({ lang, setLang: (l: Lang) => (saveLang(l), setLangState(l)) }), [lang]);
  const sessionState = useMemo(() => ({ session, set: setSession }), [session]);
  return (
    <LangContext.Provider value={langState}>
      <SessionContext.Provider value={sessionState}>
        <LocationProvider scope={STUDIO_LINKS}>
          {ready ? failure ? <BootFailure message={failure} /> : <Shell /> : <Loading />}
        </LocationProvider>
      </SessionContext.Provider>
    </LangContext.Provider>
  );
}
