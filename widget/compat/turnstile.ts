/**
 * /turnstile/v0/api.js: Cloudflare Turnstile's client API (`window.turnstile`) over our
 * engine. Options as Turnstile names them (kebab-case callbacks, `cData`), the same as
 * `data-*` attributes on `.cf-turnstile`; the token goes into `cf-turnstile-response`.
 * Accepted and ignored: tabindex, size compact/flexible, `refresh-timeout`, `feedback-enabled`,
 * `before-/after-interactive-callback`, `unsupported-callback`, `timeout-callback` (our
 * challenges do not time out on the page), `appearance: interaction-only` (shown as always).
 */
import { providerNamed } from '../../shared/providers.ts';
import { call, CompatWidget, str, dataOf, elementOf, ready, start, theme, type Callback } from './engine.ts';

type Params = Record<string, unknown>;

const ATTRS = [
  'sitekey',
  'action',
  'cdata',
  'callback',
  'expired-callback',
  'error-callback',
  'timeout-callback',
  'theme',
  'size',
  'language',
  'appearance',
  'execution',
  'retry',
  'retry-interval',
  'refresh-expired',
  'response-field',
  'response-field-name',
  'tabindex',
];

/** Turnstile's invisible test sitekeys (1x…BB passes, 2x…BB blocks), from its entry. */
const invisibleTestKeys = new Set(
  Object.entries(providerNamed('turnstile').testKeys.sitekeys)
    .filter(([, key]) => key.invisible)
    .map(([sitekey]) => sitekey),
);

/** Our error codes as Turnstile's numeric families: 110200 unknown domain, 200500 loading error, 600010 failure. */
const errorCode = (code: string) => (code === 'forbidden' ? '110200' : code === 'network' ? '200500' : '600010');

const widgets = new Map<string, CompatWidget>();
let last: string | undefined;

function render(target: unknown, p: Params = {}): string | undefined {
  const el = elementOf(target);
  if (!el) {
    console.warn('[turnstile] no element for', target);
    return undefined;
  }
  const existing = [...widgets.values()].find((w) => w.container === el);
  if (existing) return existing.id;
  const sitekey = str(p.sitekey) ?? '';
  const name = str(p['response-field-name']) || providerNamed('turnstile').responseField;
  const retry = p.retry !== 'never';
  const interval = Math.min(Math.max(Number(p['retry-interval']) || 8000, 0), 900_000);
  const refresh = p['refresh-expired'];
  let id = '';
  const w = new CompatWidget(el, {
    sitekey,
    action: p.action as string | undefined,
    cdata: (p.cData ?? p.cdata) as string | undefined,
    theme: theme(p.theme),
    language: p.language as string | undefined,
    invisible: p.size === 'invisible' || invisibleTestKeys.has(sitekey),
    autorun: p.execution !== 'execute',
    hidden: p.appearance === 'execute',
    refresh: refresh === 'manual' || refresh === 'never' ? 'manual' : 'auto',
    fields:
      p['response-field'] === false || p['response-field'] === 'false'
        ? []
        : [{ tag: 'input', name, id: `${name}-${widgets.size}` }],
    callback: (token) => call(p.callback as Callback, token),
    expired: (token) => call(p['expired-callback'] as Callback, token),
    error: (code) => {
      call(p['error-callback'] as Callback, errorCode(code));
      if (retry && (code === 'network' || code === 'server'))
        setTimeout(() => widgets.has(id) && void w.run().catch(() => {}), interval);
    },
  });
  id = w.id;
  widgets.set(id, w);
  last = id;
  return id;
}

function find(target?: unknown): CompatWidget | undefined {
  if (target === undefined || target === null) return last === undefined ? undefined : widgets.get(last);
  if (typeof target === 'string' && widgets.has(target)) return widgets.get(target);
  const el = elementOf(target);
  return [...widgets.values()].find((w) => w.container === el);
}

function implicitRender(): void {
  for (const el of document.querySelectorAll<HTMLElement>('.cf-turnstile')) {
    if (!el.dataset.auditcaptchaId)
      render(el, { ...dataOf(el, ATTRS), cData: el.getAttribute('data-cdata') ?? undefined });
  }
}

export const turnstile = {
  render,
  /** Runs a rendered widget, or renders one into `target` with `p` and runs it. */
  execute(target?: unknown, p?: Params): void {
    const w = find(target) ?? widgets.get(render(target, { ...p, execution: 'execute' }) ?? '');
    void w?.run().catch(() => {});
  },
  reset: (target?: unknown) => find(target)?.reset(),
  remove(target?: unknown) {
    const w = find(target);
    if (!w) return;
    w.remove();
    widgets.delete(w.id);
    if (last === w.id) last = [...widgets.keys()].pop();
  },
  getResponse: (target?: unknown) => find(target)?.response() || undefined,
  isExpired: (target?: unknown) => !!find(target)?.expired,
  ready,
  implicitRender,
};

declare global {
  interface Window {
    turnstile?: typeof turnstile;
  }
}

window.turnstile = turnstile;
start(implicitRender);
