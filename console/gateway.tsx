import { useState } from 'preact/hooks';
import { trpc, type Inputs } from './api.ts';
import { ErrorNotice, Notice, useAction, useLoad } from './ui.tsx';
import { fromDrafts, RulesEditor, toDrafts, words, type Rules } from './gateway-rules.tsx';

type Settings = NonNullable<Inputs['gateway']['set']['gateway']>;

const EXAMPLE_RULES: Rules = [
  { name: 'search engines', preset: 'search-crawlers', action: 'allow' },
  { name: 'feeds', preset: 'feeds', action: 'allow' },
  { name: 'AI crawlers', preset: 'ai-crawlers', action: 'deny' },
  { name: 'link previews', preset: 'link-previews', action: 'allow' },
];

/**
 * A site's gateway mode (docs/gateway.md): the hosts it protects, the clearance's lifetime, the
 * contact shown on the challenge page, the default action and the ordered rules (a group of
 * fields each, checked by the service on save: a bad field is named in the error), and what
 * each kind of visitor gets.
 */
export function GatewaySection({ sitekey }: { sitekey: string }) {
  const { data, error, reload } = useLoad(
    () => trpc.gateway.get.query({ sitekey }).then((r) => r.data.gateway),
    [sitekey],
  );
  if (error) return <ErrorNotice error={error} />;
  if (data === undefined) return <p>Loading the gateway settings…</p>;
  return <GatewayForm key={JSON.stringify(data)} sitekey={sitekey} current={data} onChange={reload} />;
}

function GatewayForm(props: { sitekey: string; current: Settings | null; onChange: () => void }) {
  const c = props.current;
  const [hosts, setHosts] = useState(c?.hosts.join('\n') ?? '');
  const [ttl, setTtl] = useState(String(c?.clearance_ttl ?? 86_400));
  const [contact, setContact] = useState(c?.contact ?? '');
  const [defaultAction, setDefaultAction] = useState<'challenge' | 'allow'>(c?.default_action ?? 'challenge');
  const [rules, setRules] = useState(() => toDrafts(c?.rules ?? EXAMPLE_RULES));
  const [saved, setSaved] = useState<string | null>(null);
  const report = useLoad(
    () => (c ? trpc.gateway.report.query({ sitekey: props.sitekey }).then((r) => r.data) : Promise.resolve(null)),
    [props.sitekey, c],
  );
  const save = useAction(async (e: Event) => {
    e.preventDefault();
    setSaved(null);
    await trpc.gateway.set.mutate({
      sitekey: props.sitekey,
      gateway: {
        hosts: words(hosts),
        clearance_ttl: Number(ttl),
        contact,
        default_action: defaultAction,
        rules: fromDrafts(rules),
        // Kept as they are: the form does not edit them (the API does).
        ...(c?.pace ? { pace: c.pace } : {}),
        ...(c?.claim_budget ? { claim_budget: c.claim_budget } : {}),
      },
    });
    setSaved('Gateway settings saved; every instance applies them at its next request.');
    props.onChange();
  });
  const off = useAction(async () => {
    await trpc.gateway.set.mutate({ sitekey: props.sitekey, gateway: null });
    setSaved('The gateway is off for this site.');
    props.onChange();
  });
  return (
    <>
      <h2>Gateway</h2>
      <p>
        Protect whole hosts behind your proxy&apos;s forward auth (see docs/gateway.md for the nginx, Caddy and Traefik
        configuration). {c ? 'The gateway is on.' : 'The gateway is off.'}
      </p>
      <form onSubmit={(e) => void save.run(e)} aria-label="Gateway settings">
        <label>
          Protected hosts (one per line; each must be among the origins)
          <textarea required rows={2} value={hosts} onInput={(e) => setHosts(e.currentTarget.value)} />
        </label>
        <label>
          Clearance lifetime in seconds (60 to 2592000)
          <input
            type="number"
            min={60}
            max={2_592_000}
            required
            inputMode="numeric"
            value={ttl}
            onInput={(e) => setTtl(e.currentTarget.value)}
          />
        </label>
        <label>
          Contact shown on the challenge page
          <textarea rows={2} maxLength={500} value={contact} onInput={(e) => setContact(e.currentTarget.value)} />
        </label>
        <label>
          Requests no rule decides
          <select
            value={defaultAction}
            onChange={(e) => setDefaultAction(e.currentTarget.value as 'challenge' | 'allow')}
          >
            <option value="challenge">Challenge them (the whole site is behind the check)</option>
            <option value="allow">Let them through (only what the rules single out is checked)</option>
          </select>
        </label>
        <RulesEditor drafts={rules} onChange={setRules} />
        <button type="submit" disabled={save.pending}>
          Save gateway
        </button>{' '}
        {c && (
          <button type="button" onClick={() => void off.run()} disabled={off.pending}>
            Turn the gateway off
          </button>
        )}
      </form>
      <ErrorNotice error={save.error ?? off.error} />
      {saved && <Notice kind="ok">{saved}</Notice>}
      {report.data && (
        <table>
          <caption>
            What each kind of visitor gets: {report.data.passed ? 'as a site usually wants' : 'some not as wanted'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Visitor</th>
              <th scope="col">Gets</th>
              <th scope="col">Rule</th>
              <th scope="col">As wanted</th>
            </tr>
          </thead>
          <tbody>
            {report.data.checks.map((check) => (
              <tr key={check.persona}>
                <th scope="row">{check.persona}</th>
                <td>{check.outcome}</td>
                <td>{check.rule}</td>
                <td>{check.ok ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.data?.warnings.map((warning) => (
        <Notice key={warning} kind="info">
          {warning}
        </Notice>
      ))}
    </>
  );
}
