import { useEffect, useState } from 'preact/hooks';
import { currentSession, signIn, signOut, whenSessionLost, type Session } from './api.ts';
import { Analytics } from './analytics.tsx';
import { KeysPage } from './keys.tsx';
import { WebhooksPage } from './webhooks.tsx';
import { AuditPage, AuditsPage } from './audits.tsx';
import { ProjectsPage } from './projects.tsx';
import { ReportPage, ReportsPage } from './reports.tsx';
import { SitePage, SitesPage } from './sites.tsx';
import { ErrorNotice, Notice, PageTitle, useAction } from './ui.tsx';
import { KeyDialog } from './confirm-key.tsx';
import { usePlace, type Place } from './router.ts';

const NAV: Array<[string, string]> = [
  ['sites', 'Sites'],
  ['analytics', 'Analytics'],
  ['keys', 'API keys'],
  ['audits', 'Site audits'],
  ['webhooks', 'Webhooks'],
  ['reports', 'Reports'],
  ['projects', 'Projects'],
];

/** The console: the sign-in form until there is a session, then the pages. */
export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [lost, setLost] = useState<string | null>(null);
  useEffect(() => {
    whenSessionLost((message) => {
      setSession(null);
      setLost(message);
    });
    currentSession().then(setSession, () => setSession(null));
  }, []);
  if (session === undefined) return <p role="status">Loading…</p>;
  if (!session) {
    return (
      <SignIn
        notice={lost}
        onSignedIn={(s) => {
          setLost(null);
          setSession(s);
        }}
      />
    );
  }
  return <Signed session={session} onSignedOut={() => setSession(null)} />;
}

function SignIn(props: { notice: string | null; onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const action = useAction(async (e: Event) => {
    e.preventDefault();
    props.onSignedIn(await signIn(key));
  });
  return (
    <main id="main" class="signin">
      <PageTitle>Sign in to the console</PageTitle>
      {props.notice && <Notice kind="info">{props.notice}</Notice>}
      <form onSubmit={(e) => void action.run(e)}>
        <label>
          API key
          <input
            name="api_key"
            type="password"
            autoComplete="off"
            required
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={action.pending}>
          Sign in
        </button>
      </form>
      <ErrorNotice error={action.error} />
      <p class="muted">The first start printed a key on a line starting “API key (shown once, keep it)”.</p>
    </main>
  );
}

function Signed(props: { session: Session; onSignedOut: () => void }) {
  const place = usePlace();
  const out = useAction(async () => {
    await signOut();
    props.onSignedOut();
  });
  const section = place.path[0] ?? 'sites';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header>
        <span class="brand">auditcaptcha console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={section === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {props.session.account.name} ({props.session.api_key.prefix}){' '}
          <button type="button" onClick={() => void out.run()}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorNotice error={out.error} />
        <Page place={place} />
      </main>
      <KeyDialog />
    </>
  );
}

function Page({ place }: { place: Place }) {
  const [section = 'sites', id] = place.path;
  switch (section) {
    case 'sites':
      return id ? <SitePage key={id} sitekey={id} /> : <SitesPage />;
    case 'analytics':
      return (
        <>
          <PageTitle>Analytics, all sites</PageTitle>
          <Analytics />
        </>
      );
    case 'keys':
      return <KeysPage />;
    case 'audits':
      return id ? <AuditPage key={id} id={id} /> : <AuditsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'reports':
      return id ? <ReportPage key={id} id={id} /> : <ReportsPage key={place.query.toString()} place={place} />;
    case 'projects':
      return <ProjectsPage />;
    default:
      return (
        <>
          <PageTitle>Not found</PageTitle>
          <p>
            There is no such page. <a href="#/sites">Go to the sites</a>.
          </p>
        </>
      );
  }
}
