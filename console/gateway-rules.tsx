import { useState } from 'preact/hooks';
import type { Inputs } from './api.ts';

type Settings = NonNullable<Inputs['gateway']['set']['gateway']>;
export type Rules = NonNullable<Settings['rules']>;
type Rule = Rules[number];
type Preset = NonNullable<Rule['preset']>;
type Action = Rule['action'];

/** The presets' words (docs/gateway.md, "Presets"); typed over the API's union, so none is missed. */
const PRESETS: Record<Preset, string> = {
  'search-crawlers': 'Search crawlers, verified by reverse DNS',
  feeds: 'Feeds and APIs (RSS, Atom, JSON)',
  'link-previews': 'Link previews (Open Graph fetchers)',
  'ai-crawlers': 'AI crawlers, by User-Agent (maintained list)',
};

const ACTIONS: Record<Action, string> = {
  allow: 'Allow: serve it, no check',
  deny: 'Deny: 403 with the rule’s name',
  challenge: 'Challenge: a clearance is needed',
  weigh: 'Weigh: add its weight to the score',
};

/** A select's options, in the order of `labels` (value to words). */
const options = <K extends string>(labels: Record<K, string>) =>
  (Object.keys(labels) as K[]).map((value) => (
    <option key={value} value={value}>
      {labels[value]}
    </option>
  ));

/** A rule as the form edits it: every field as the text in its input. */
export interface RuleDraft {
  /** Stable across moves, so an input keeps its focus and value when rules are reordered. */
  id: number;
  name: string;
  preset: Preset | '';
  path: string;
  methods: string;
  userAgent: string;
  headers: string;
  networks: string;
  action: Action;
  weight: string;
}

let nextId = 1;

/** The words of a list typed with spaces, commas or new lines between them. */
export const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function toDrafts(rules: Rules): RuleDraft[] {
  return rules.map((r) => ({
    id: nextId++,
    name: r.name ?? '',
    preset: r.preset ?? '',
    path: r.path ?? '',
    methods: (r.methods ?? []).join(' '),
    userAgent: r.user_agent ?? '',
    headers: Object.entries(r.headers ?? {})
      .map(([name, pattern]) => `${name}: ${pattern}`)
      .join('\n'),
    networks: (r.networks ?? []).join(' '),
    action: r.action,
    weight: r.weight === undefined ? '' : String(r.weight),
  }));
}

/**
 * The rules the API takes, from the form. What only the service can judge (patterns, networks,
 * a path's form) it checks on save and names by field (`rules.2.user_agent`); here only what
 * the text itself cannot say: a header line without its name, a weight that is not a number.
 */
export function fromDrafts(drafts: RuleDraft[]): Rules {
  return drafts.map((d, i) => {
    const rule: Rule = { action: d.action };
    if (d.name.trim()) rule.name = d.name.trim();
    if (d.preset) rule.preset = d.preset;
    if (d.path.trim()) rule.path = d.path.trim();
    const methods = words(d.methods);
    if (methods.length) rule.methods = methods.map((m) => m.toUpperCase());
    // Patterns may hold spaces: only the ends are trimmed.
    if (d.userAgent.trim()) rule.user_agent = d.userAgent.trim();
    const lines = d.headers.split('\n').filter((line) => line.trim());
    if (lines.length) {
      rule.headers = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon < 1) throw new Error(`Rule ${i + 1}: each header line is "Name: pattern".`);
        rule.headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      }
    }
    const networks = words(d.networks);
    if (networks.length) rule.networks = networks;
    if (d.action === 'weigh') {
      const weight = Number(d.weight);
      if (!d.weight.trim() || !Number.isInteger(weight)) {
        throw new Error(`Rule ${i + 1}: a weighing rule needs a whole-number weight.`);
      }
      rule.weight = weight;
    }
    return rule;
  });
}

/** A new rule: no conditions yet, and the action no rule needs to name. */
const blank = (): RuleDraft => toDrafts([{ action: 'challenge' }])[0];

/** The ordered rules of a site's gateway, one group of fields each, moved and removed by buttons. */
export function RulesEditor(props: { drafts: RuleDraft[]; onChange: (drafts: RuleDraft[]) => void }) {
  const { drafts, onChange } = props;
  const [announce, setAnnounce] = useState('');
  const edit = (i: number, patch: Partial<RuleDraft>) =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...drafts];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    onChange(next);
    setAnnounce(`Rule ${i + 1} is now rule ${i + 1 + by}.`);
  };
  const remove = (i: number) => {
    onChange(drafts.filter((_, j) => j !== i));
    setAnnounce(`Rule ${i + 1} removed.`);
  };
  const text = (
    i: number,
    field: 'name' | 'path' | 'methods' | 'userAgent' | 'networks',
    label: string,
    hint?: string,
  ) => (
    <label>
      <span>
        {label}
        {hint && <span class="muted"> ({hint})</span>}
      </span>
      <input value={drafts[i][field]} spellcheck={false} onInput={(e) => edit(i, { [field]: e.currentTarget.value })} />
    </label>
  );
  return (
    <div class="rules">
      <h3>Rules, in order</h3>
      <p class="muted">
        The first rule that matches and allows, denies or challenges decides; weighing rules add to a score the
        thresholds turn into a challenge or a denial. Every condition given must match; an empty one matches anything.
      </p>
      {drafts.length === 0 && <p>No rules: every request gets what “Requests no rule decides” says.</p>}
      <ol>
        {drafts.map((d, i) => (
          <li key={d.id}>
            <fieldset>
              <legend>
                Rule {i + 1}
                {d.name.trim() ? `: ${d.name.trim()}` : ''}
              </legend>
              {text(i, 'name', 'Name', 'shown in denials and metrics')}
              <label>
                Preset
                <select value={d.preset} onChange={(e) => edit(i, { preset: e.currentTarget.value as Preset | '' })}>
                  <option value="">None</option>
                  {options(PRESETS)}
                </select>
              </label>
              {text(i, 'path', 'Path', '/prefix, or a glob with *')}
              {text(i, 'methods', 'Methods', 'e.g. GET HEAD')}
              {text(i, 'userAgent', 'User-Agent pattern', 'a safe regular expression')}
              <label>
                <span>
                  Header patterns <span class="muted">(one “Name: pattern” per line)</span>
                </span>
                <textarea
                  rows={2}
                  spellcheck={false}
                  value={d.headers}
                  onInput={(e) => edit(i, { headers: e.currentTarget.value })}
                />
              </label>
              {text(i, 'networks', 'Client networks', 'CIDR blocks, space-separated')}
              <label>
                Action
                <select value={d.action} onChange={(e) => edit(i, { action: e.currentTarget.value as Action })}>
                  {options(ACTIONS)}
                </select>
              </label>
              {d.action === 'weigh' && (
                <label>
                  <span>
                    Weight <span class="muted">(may be negative)</span>
                  </span>
                  <input
                    type="number"
                    inputMode="numeric"
                    min={-1000}
                    max={1000}
                    step={1}
                    required
                    value={d.weight}
                    onInput={(e) => edit(i, { weight: e.currentTarget.value })}
                  />
                </label>
              )}
              <div class="rule-buttons">
                <button
                  type="button"
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                  aria-label={`Move up rule ${i + 1}`}
                >
                  Move up
                </button>
                <button
                  type="button"
                  disabled={i === drafts.length - 1}
                  onClick={() => move(i, 1)}
                  aria-label={`Move down rule ${i + 1}`}
                >
                  Move down
                </button>
                <button type="button" onClick={() => remove(i)} aria-label={`Remove rule ${i + 1}`}>
                  Remove
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <button type="button" onClick={() => onChange([...drafts, blank()])}>
        Add a rule
      </button>
      <p class="visually-hidden" role="status">
        {announce}
      </p>
    </div>
  );
}
