/**
 * The one engine under every compatibility script: window.auditcaptcha (../index.ts),
 * bundled once into each script and used only through its public API (render, execute,
 * reset, getResponse, remove, ready and the render callbacks). What a provider adds on top
 * is names: its option names, its hidden fields, its widget ids and its error codes.
 */
import { engineUrl, params } from './boot.ts';
import { install, type AuditCaptcha } from '../install.ts';

// Installed once per page, whichever script came first (widget.js or another provider's).
if (!window.auditcaptcha) install(engineUrl);

export { params };
export const ac: AuditCaptcha = window.auditcaptcha!;

type Fn = (...args: never[]) => unknown;
/** A callback as pages give it: a function, or the name of a global function (data-* attributes). */
export type Callback = Fn | string | undefined | null;

/** Calls a function or a named global; its errors do not stop the widget. */
export function call(cb: Callback, ...args: unknown[]): void {
  const fn = typeof cb === 'string' ? (window as unknown as Record<string, unknown>)[cb] : cb;
  if (typeof fn !== 'function') return;
  try {
    (fn as (...a: unknown[]) => unknown)(...args);
  } catch (err) {
    setTimeout(() => {
      throw err;
    });
  }
}

/** An element, its id (reCAPTCHA, hCaptcha) or a selector (Turnstile's `'#box'`). */
export function elementOf(target: unknown): HTMLElement | null {
  if (target instanceof HTMLElement) return target;
  if (typeof target !== 'string' || !target) return null;
  try {
    return document.getElementById(target) ?? document.querySelector<HTMLElement>(target);
  } catch {
    return null;
  }
}

/** `data-<name>` attributes of `el` that are present, by name. */
export function dataOf(el: Element, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = el.getAttribute(`data-${n}`);
    if (v !== null) out[n] = v;
  }
  return out;
}

/** A string option as given (numbers as their digits); anything else is absent. */
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The theme the engine knows; anything else (hCaptcha's `contrast`, objects) is its `auto`. */
export const theme = (t: unknown) => (t === 'light' || t === 'dark' ? t : undefined);

export interface Field {
  tag: 'input' | 'textarea';
  name: string;
  id?: string;
}

/** What a provider's options come to, in the engine's terms. */
export interface CompatOptions {
  sitekey: string;
  action?: string;
  cdata?: string;
  theme?: 'light' | 'dark';
  language?: string;
  /** The engine's invisible mode: a score token, no box. */
  invisible?: boolean;
  /** Run at once (Turnstile's default `execution: render`). */
  autorun?: boolean;
  /** Keep the box hidden until executed (Turnstile's `appearance: execute`). */
  hidden?: boolean;
  refresh?: 'auto' | 'manual';
  /** The provider's hidden fields, holding the token. */
  fields: Field[];
  /** Where the fields go; the container by default. */
  fieldHost?: Element;
  callback?: (token: string) => void;
  expired?: (token: string) => void;
  /** With the engine's error code (forbidden, network, rate-limited, expired, invalid, server). */
  error?: (code: string) => void;
}

/** One provider widget over one engine widget. */
export class CompatWidget {
  readonly id: string;
  token = '';
  expired = false;
  readonly fields: HTMLElement[];

  constructor(
    readonly container: HTMLElement,
    private readonly o: CompatOptions,
  ) {
    this.fields = o.fields.map((f) => {
      const el = document.createElement(f.tag);
      el.setAttribute('name', f.name);
      if (f.id) el.id = f.id;
      if (f.tag === 'input') el.setAttribute('type', 'hidden');
      else el.style.display = 'none';
      (o.fieldHost ?? container).append(el);
      return el;
    });
    if (o.hidden) container.style.display = 'none';
    this.id = ac.render(container, {
      sitekey: o.sitekey,
      mode: o.invisible ? 'invisible' : 'managed',
      action: o.action,
      cdata: o.cdata,
      theme: o.theme,
      language: o.language,
      refreshExpired: o.refresh,
      responseFieldAliases: [],
      callback: (token) => {
        this.set(token);
        o.callback?.(token);
      },
      expiredCallback: () => {
        const token = this.token;
        this.set('');
        this.expired = true;
        o.expired?.(token);
      },
      errorCallback: (code) => {
        this.set('');
        o.error?.(code);
      },
    });
    if (o.autorun) void this.run().catch(() => {});
  }

  private set(token: string): void {
    this.token = token;
    this.expired = false;
    for (const f of this.fields) (f as HTMLInputElement).value = token;
  }

  /** Runs the engine widget: resolves with a token (errors also reach the error callback). */
  run(): Promise<string> {
    if (this.o.hidden) this.container.style.display = '';
    return ac.execute(this.id);
  }

  /** The live token, or '' (also once it has expired). */
  response(): string {
    return ac.getResponse(this.id) ?? '';
  }

  reset(): void {
    ac.reset(this.id);
    this.set('');
    if (this.o.autorun) void this.run().catch(() => {});
  }

  remove(): void {
    ac.remove(this.id);
    for (const f of this.fields) f.remove();
  }
}

/** Runs `fn` once the document is parsed (at once when it already is). */
export const ready = (fn: () => void) => ac.ready(fn);

/**
 * Once the document is parsed: implicit rendering (unless the script URL says
 * `?render=explicit`), then the script's `?onload=` global, as every provider does. Called
 * by each script after it has set its global.
 */
export function start(implicitRender: () => void): void {
  ready(() => {
    if (params.get('render') !== 'explicit') implicitRender();
    const onload = params.get('onload');
    if (onload) call(onload);
  });
}
