/**
 * The widget's engine: `window.auditcaptcha` (render, execute, reset, ...), and implicit
 * rendering of `[data-sitekey]` elements. widget.js (./index.ts) installs it from its own
 * script URL; each provider's compatibility script (./compat/engine.ts) from widget.js's URL
 * beside it.
 */
import { Api } from './api.ts';
import { addTranslation, type Strings } from './strings.ts';
import { watchInteractions } from './telemetry.ts';
import { Widget, type Mode, type RenderOptions } from './widget.ts';

export interface AuditCaptcha {
  render(target: string | HTMLElement, options: RenderOptions): string;
  /** A v3 score token for `sitekey` (or runs the rendered widget with that id). */
  execute(sitekeyOrId: string, options?: { action?: string; cdata?: string }): Promise<string>;
  reset(id?: string): void;
  getResponse(id?: string): string | undefined;
  remove(id?: string): void;
  addTranslation(language: string, strings: Partial<Strings>): void;
  ready(fn: () => void): void;
}

declare global {
  interface Window {
    auditcaptcha?: AuditCaptcha;
    auditcaptchaTranslations?: Record<string, Partial<Strings>>;
  }
}

/**
 * Installs `window.auditcaptcha`, talking to the service at `src`'s folder: the URL of
 * widget.js, whose query may say `render=explicit` and `onload=<global>`.
 */
export function install(src: URL): void {
  const api = new Api(new URL('.', src).href.replace(/\/$/, ''));
  const widgets = new Map<string, Widget>();
  let serial = 0;

  const find = (id?: string): Widget | undefined =>
    id === undefined ? widgets.values().next().value : widgets.get(id);

  const render = (target: string | HTMLElement, options: RenderOptions): string => {
    const el = typeof target === 'string' ? document.querySelector<HTMLElement>(target) : target;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a selector string here, or whatever untyped page script passed; String() names it either way
    if (!el) throw new Error(`auditcaptcha: no element matches ${String(target)}`);
    if (!options?.sitekey) throw new Error('auditcaptcha: a sitekey is required');
    const existing = el.dataset.auditcaptchaId;
    if (existing && widgets.has(existing)) return existing;
    const id = `ac${serial++}`;
    el.dataset.auditcaptchaId = id;
    widgets.set(id, new Widget(id, api, el, options));
    return id;
  };

  const fromData = (el: HTMLElement): RenderOptions => {
    const d = el.dataset;
    return {
      sitekey: d.sitekey!,
      mode: d.mode as Mode | undefined,
      action: d.action,
      cdata: d.cdata,
      theme: d.theme as RenderOptions['theme'],
      language: d.language,
      responseFieldAliases: d.responseFieldAliases,
      refreshExpired: d.refreshExpired as RenderOptions['refreshExpired'],
      callback: d.callback,
      expiredCallback: d.expiredCallback,
      errorCallback: d.errorCallback,
    };
  };

  const ready = (fn: () => void) => {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn, { once: true });
    else fn();
  };

  const api$: AuditCaptcha = {
    render,
    async execute(sitekeyOrId, options = {}) {
      const widget = widgets.get(sitekeyOrId);
      if (widget) return widget.execute();
      return (await api.score(sitekeyOrId, options.action, options.cdata)).token;
    },
    reset: (id) => find(id)?.reset(),
    getResponse: (id) => find(id)?.response(),
    remove(id) {
      const widget = find(id);
      if (!widget) return;
      widget.remove();
      widgets.delete(widget.id);
      delete widget.container.dataset.auditcaptchaId;
    },
    addTranslation,
    ready,
  };

  for (const [lang, strings] of Object.entries(window.auditcaptchaTranslations ?? {})) addTranslation(lang, strings);
  watchInteractions();
  window.auditcaptcha = api$;

  ready(() => {
    if (src.searchParams.get('render') !== 'explicit') {
      for (const el of document.querySelectorAll<HTMLElement>('[data-sitekey]'))
        if (!el.dataset.auditcaptchaId) render(el, fromData(el));
    }
    const onload = src.searchParams.get('onload');
    const fn = onload ? (window as unknown as Record<string, unknown>)[onload] : undefined;
    if (typeof fn === 'function') Reflect.apply(fn, undefined, []);
  });
}
