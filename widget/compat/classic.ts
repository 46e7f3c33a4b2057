/**
 * What reCAPTCHA v2 and hCaptcha share (hCaptcha copied reCAPTCHA's API): `render` into an
 * element or an element id, `.g-recaptcha` / `.h-captcha` implicit rendering from data-*
 * attributes, `size: invisible` run by `execute`, and a `<button class="…" data-callback>`
 * bound on click without wrapping it (the token goes into the button's form).
 * The checkbox (`size` normal or compact) is our managed widget: it runs when clicked.
 * Accepted and ignored: tabindex, badge, isolated, compact sizing.
 */
import { call, CompatWidget, str, dataOf, elementOf, params, theme, type Callback, type Field } from './engine.ts';

type Params = Record<string, unknown>;

const ATTRS = [
  'sitekey',
  'theme',
  'size',
  'tabindex',
  'callback',
  'expired-callback',
  'error-callback',
  'badge',
  'action',
  'chalexpired-callback',
  'open-callback',
  'close-callback',
];

export interface Flavour {
  /** Class of implicitly rendered elements. */
  cls: string;
  /** The hidden fields of the n-th widget. */
  fields(n: number): Field[];
  /** Arguments of `error-callback` for one of our error codes. */
  errorArgs(code: string): unknown[];
}

/** A registry of widgets and the verbs over it; ids are the registration order. */
export function classic(f: Flavour) {
  const widgets: (CompatWidget | undefined)[] = [];
  /** Rendered elements (bound buttons included) and their widget ids. */
  const owners = new Map<Element, number>();

  function render(target: unknown, p: Params = {}, inherit?: boolean): number {
    const el = elementOf(target);
    if (!el) throw new Error(`${f.cls}: no element for ${String(target)}`);
    const known = owners.get(el);
    if (known !== undefined && widgets[known]) return known;
    if (inherit) p = { ...dataOf(el, ATTRS), ...p };
    const n = widgets.length;
    const button = el instanceof HTMLButtonElement || el instanceof HTMLInputElement;
    // A bound button keeps its place and looks: the (invisible) widget sits beside it.
    const container = button ? document.createElement('div') : el;
    if (button) el.after(container);
    const w = new CompatWidget(container, {
      sitekey: str(p.sitekey) ?? '',
      action: p.action as string | undefined,
      theme: theme(p.theme ?? 'light'),
      language: params.get('hl') ?? undefined,
      invisible: button || p.size === 'invisible',
      fields: f.fields(n),
      fieldHost: button ? (el.form ?? container) : undefined,
      callback: (token) => call(p.callback as Callback, token),
      expired: () => call(p['expired-callback'] as Callback),
      error: (code) => call(p['error-callback'] as Callback, ...f.errorArgs(code)),
    });
    widgets.push(w);
    owners.set(el, n);
    if (button) {
      el.addEventListener('click', (e) => {
        e.preventDefault();
        void w.run().catch(() => {});
      });
    }
    return n;
  }

  const find = (id?: unknown) =>
    widgets[id === undefined || id === null || id === '' ? widgets.findIndex((w) => w) : Number(id)];

  return {
    widgets,
    render,
    find,
    /** Runs widget `id` (the first by default); the token comes through its callback. */
    execute: (id?: unknown): Promise<string> | undefined => find(id)?.run(),
    reset: (id?: unknown) => find(id)?.reset(),
    getResponse: (id?: unknown) => find(id)?.response() ?? '',
    remove: (id?: unknown) => {
      const w = find(id);
      if (!w) return;
      w.remove();
      widgets[widgets.indexOf(w)] = undefined;
    },
    implicitRender: () => {
      for (const el of document.querySelectorAll<HTMLElement>(`.${f.cls}`)) if (!owners.has(el)) render(el, {}, true);
    },
  };
}
