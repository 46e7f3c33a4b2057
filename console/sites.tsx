import { useState } from 'preact/hooks';
import { confirmedWith, trpc, type Outputs } from './api.ts';
import { withTypedKey } from './confirm-key.tsx';
import { Analytics } from './analytics.tsx';
import { GatewaySection } from './gateway.tsx';
import { ConfirmButton, ErrorNotice, Notice, PageTitle, Secret, formatDate, useAction, useLoad } from './ui.tsx';
import { navigate } from './router.ts';

type Site = Outputs['sites']['list']['data'][number];
type Level = 'low' | 'default' | 'high';

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The sites list and the form that registers one (its secret shown once). */
export function SitesPage() {
  const { data, error, reload } = useLoad(() => trpc.sites.list.query().then((r) => r.data), []);
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [level, setLevel] = useState<Level>('default');
  const [created, setCreated] = useState<{ sitekey: string; secret: string } | null>(null);
  const create = useAction(async (e: Event) => {
    e.preventDefault();
    const made = await withTypedKey('Registering a site', (typed) =>
      trpc.sites.create.mutate({ name, origins: lines(origins), security_level: level }, confirmedWith(typed)),
    );
    if (!made) return;
    const site = made.data;
    setCreated({ sitekey: site.sitekey, secret: site.secret });
    setName('');
    setOrigins('');
    reload();
  });
  return (
    <>
      <PageTitle>Sites</PageTitle>
      <ErrorNotice error={error} />
      {data && data.length === 0 && <p>No sites yet: register one below.</p>}
      {data && data.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Sites, scrollable">
          <table>
            <caption class="visually-hidden">Your sites</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Sitekey</th>
                <th scope="col">Origins</th>
                <th scope="col">Security level</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.map((s) => (
                <tr key={s.sitekey}>
                  <td>
                    <a href={`#/sites/${encodeURIComponent(s.sitekey)}`}>{s.name}</a>
                  </td>
                  <td>
                    <code>{s.sitekey}</code>
                  </td>
                  <td>{s.origins.join(', ')}</td>
                  <td>{s.security_level}</td>
                  <td>{formatDate(s.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Register a site</h2>
      <form onSubmit={(e) => void create.run(e)}>
        <label>
          Name
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Origins (one per line, such as https://shop.example)
          <textarea required rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        </label>
        <LevelSelect value={level} onChange={setLevel} />
        <button type="submit" disabled={create.pending}>
          {create.pending ? 'Registering…' : 'Register site'}
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {created && (
        <>
          <Notice kind="ok">
            Site registered: <a href={`#/sites/${encodeURIComponent(created.sitekey)}`}>open it</a>.
          </Notice>
          <Secret label="Site secret" value={created.secret} />
        </>
      )}
    </>
  );
}

function LevelSelect(props: { value: Level; onChange: (l: Level) => void }) {
  return (
    <label>
      Security level
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as Level)}>
        <option value="low">Low (least work)</option>
        <option value="default">Default</option>
        <option value="high">High (most work)</option>
      </select>
    </label>
  );
}

/** One site: its analytics, settings, secret rotation, embed snippets and deletion. */
export function SitePage(props: { sitekey: string }) {
  const { data: sites, error, reload } = useLoad(() => trpc.sites.list.query().then((r) => r.data), [props.sitekey]);
  const site = sites?.find((s) => s.sitekey === props.sitekey);
  if (error) return <ErrorNotice error={error} />;
  if (!sites) return <p role="status">Loading…</p>;
  if (!site) {
    return (
      <>
        <PageTitle>Site not found</PageTitle>
        <p>
          No site of yours has this sitekey. <a href="#/sites">Back to the sites</a>.
        </p>
      </>
    );
  }
  return <SiteDetail site={site} onChange={reload} />;
}

/** AS numbers typed as a list: `AS16509, 14061` and the like; anything else is dropped. */
const asnList = (text: string): number[] =>
  text
    .split(/[\s,]+/)
    .map((t) => Number(t.replace(/^AS/i, '')))
    .filter((n) => Number.isSafeInteger(n) && n > 0);

function SiteDetail({ site, onChange }: { site: Site; onChange: () => void }) {
  const [name, setName] = useState(site.name);
  const [origins, setOrigins] = useState(site.origins.join('\n'));
  const [level, setLevel] = useState<Level>(site.security_level);
  const [limit, setLimit] = useState(site.siteverify_per_minute === null ? '' : String(site.siteverify_per_minute));
  const [remoteip, setRemoteip] = useState<Site['remoteip_check']>(site.remoteip_check);
  const [minScore, setMinScore] = useState(String(site.min_score));
  const [hosting, setHosting] = useState((site.networks?.hosting ?? []).join(' '));
  const [exempt, setExempt] = useState((site.networks?.exempt ?? []).join(' '));
  const [saved, setSaved] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const save = useAction(async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    await trpc.sites.update.mutate({
      sitekey: site.sitekey,
      name,
      origins: lines(origins),
      security_level: level,
      siteverifyPerMinute: limit.trim() === '' ? null : Number(limit),
      remoteip_check: remoteip,
      min_score: Number(minScore),
      networks:
        asnList(hosting).length || asnList(exempt).length
          ? { hosting: asnList(hosting), exempt: asnList(exempt) }
          : null,
    });
    setSaved(true);
    onChange();
  });
  const rotate = useAction(async () => {
    const rotated = await withTypedKey('Rotating the secret', (typed) =>
      trpc.sites.rotateSecret.mutate({ sitekey: site.sitekey }, confirmedWith(typed)),
    );
    if (rotated) setSecret(rotated.data.secret);
  });
  const remove = useAction(async () => {
    const done = await withTypedKey('Deleting the site', (typed) =>
      trpc.sites.delete.mutate({ sitekey: site.sitekey }, confirmedWith(typed)),
    );
    if (done) navigate('#/sites');
  });
  return (
    <>
      <PageTitle>{site.name}</PageTitle>
      <p>
        Sitekey <code>{site.sitekey}</code> · created {formatDate(site.created_at)}
      </p>
      <Analytics sitekey={site.sitekey} />
      <h2>Settings</h2>
      <form onSubmit={(e) => void save.run(e)}>
        <label>
          Name
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Origins (one per line)
          <textarea required rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        </label>
        <LevelSelect value={level} onChange={setLevel} />
        <label>
          Siteverify calls a minute per address (empty: 120)
          <input
            type="number"
            min={1}
            inputMode="numeric"
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
          />
        </label>
        <label>
          A token used from another network than it was solved on (siteverify&apos;s remoteip)
          <select value={remoteip} onChange={(e) => setRemoteip(e.currentTarget.value as Site['remoteip_check'])}>
            <option value="enforce">Refuse it (remoteip-mismatch)</option>
            <option value="score">Pass it with a score of 0.1</option>
            <option value="off">Do not check</option>
          </select>
        </label>
        <label>
          Minimum score: siteverify refuses tokens below it, on every path (0.5 keeps out what a program without a
          browser can earn; 0 lets every token through)
          <input
            type="number"
            min={0}
            max={1}
            step={0.05}
            required
            inputMode="decimal"
            value={minScore}
            onInput={(e) => setMinScore(e.currentTarget.value)}
          />
        </label>
        <label>
          Also count these networks as hosting networks (AS numbers, separated by spaces)
          <input inputMode="numeric" value={hosting} onInput={(e) => setHosting(e.currentTarget.value)} />
        </label>
        <label>
          Never count these networks as hosting networks (AS numbers: an office or a partner&apos;s VPN)
          <input inputMode="numeric" value={exempt} onInput={(e) => setExempt(e.currentTarget.value)} />
        </label>
        <p class="muted">
          Tokens from hosting and cloud networks score 0.6 lower. Networks from the IP to ASN Lite database by{' '}
          <a href="https://db-ip.com">DB-IP</a> and from <a href="https://www.routeviews.org">RouteViews</a> (CC BY
          4.0), through the <code>@ip-location-db/asn</code> package.
        </p>
        <button type="submit" disabled={save.pending}>
          Save settings
        </button>
      </form>
      <ErrorNotice error={save.error} />
      {saved && <Notice kind="ok">Settings saved.</Notice>}
      <h2>Secret</h2>
      <p>
        Rotating makes a new secret; the old one stops working at once
        {site.secret_rotated_at ? ` (last rotated ${formatDate(site.secret_rotated_at)})` : ''}.
      </p>
      <button type="button" onClick={() => void rotate.run()} disabled={rotate.pending}>
        Rotate secret
      </button>
      <ErrorNotice error={rotate.error} />
      {secret && <Secret label="New site secret" value={secret} />}
      <Snippets sitekey={site.sitekey} />
      <GatewaySection sitekey={site.sitekey} />
      <h2>Delete</h2>
      <ConfirmButton
        label="Delete site"
        confirm={`Delete ${site.name}? Its widgets stop working at once.`}
        onConfirm={() => remove.run()}
      />
      <ErrorNotice error={remove.error} />
    </>
  );
}

/** The HTML to embed, per widget mode and per provider drop-in, with this service's address. */
export function snippets(base: string, sitekey: string): Array<{ id: string; title: string; html: string }> {
  return [
    {
      id: 'managed',
      title: 'Widget, managed (pass, proof of work, or an image when needed)',
      html: `<script src="${base}/widget.js" async defer></script>\n<form method="post" action="/submit">\n  <div data-sitekey="${sitekey}" data-mode="managed"></div>\n  <button>Send</button>\n</form>`,
    },
    {
      id: 'explicit',
      title: 'Widget, explicit image challenge',
      html: `<script src="${base}/widget.js" async defer></script>\n<div data-sitekey="${sitekey}" data-mode="explicit"></div>`,
    },
    {
      id: 'invisible',
      title: 'Widget, invisible v3 score',
      html: `<script src="${base}/widget.js" async defer></script>\n<div data-sitekey="${sitekey}" data-mode="invisible" data-action="submit"></div>`,
    },
    {
      id: 'turnstile',
      title: 'Cloudflare Turnstile drop-in',
      html: `<script src="${base}/turnstile/v0/api.js" async defer></script>\n<div class="cf-turnstile" data-sitekey="${sitekey}"></div>`,
    },
    {
      id: 'recaptcha',
      title: 'reCAPTCHA v2 drop-in',
      html: `<script src="${base}/recaptcha/api.js" async defer></script>\n<div class="g-recaptcha" data-sitekey="${sitekey}"></div>`,
    },
    {
      id: 'recaptcha-v3',
      title: 'reCAPTCHA v3 drop-in',
      html: `<script src="${base}/recaptcha/api.js?render=${sitekey}"></script>\n<!-- then: grecaptcha.execute('${sitekey}', {action: 'submit'}) -->`,
    },
    {
      id: 'hcaptcha',
      title: 'hCaptcha drop-in',
      html: `<script src="${base}/1/api.js" async defer></script>\n<div class="h-captcha" data-sitekey="${sitekey}"></div>`,
    },
  ];
}

function Snippets({ sitekey }: { sitekey: string }) {
  return (
    <section aria-labelledby="embed-title">
      <h2 id="embed-title">Embed</h2>
      <p>Your server then verifies the token at {location.origin}/api/v1/siteverify with the site secret.</p>
      {snippets(location.origin, sitekey).map((s) => (
        <details key={s.id}>
          <summary>{s.title}</summary>
          <pre data-testid={`snippet-${s.id}`}>
            <code>{s.html}</code>
          </pre>
        </details>
      ))}
    </section>
  );
}
