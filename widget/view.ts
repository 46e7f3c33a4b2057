import type { Strings } from './strings.ts';

/** States the box shows; CSS keys off `data-state`. */
export type State = 'idle' | 'working' | 'challenge' | 'success' | 'error';

/** The widget's elements, inside a shadow root so the page's CSS cannot reach them. */
export interface View {
  host: HTMLElement;
  box: HTMLElement;
  /**
   * Managed: a button with the checkbox role (the providers' v2 checkbox), `aria-checked` once
   * verified; "Verify you are human", after success "Verified", after an error "Try again".
   */
  action: HTMLButtonElement;
  actionText: HTMLElement;
  panel: HTMLElement;
  image: HTMLImageElement;
  answer: HTMLInputElement;
  submit: HTMLButtonElement;
  refresh: HTMLButtonElement;
  /** The way through without the image (a longer proof of work instead). */
  noImage: HTMLButtonElement;
  progress: HTMLProgressElement;
  /** The one live region: every state change is announced through it. */
  status: HTMLElement;
}

const light =
  '--bg:#fafafa;--fg:#1d1d1f;--muted:#5f6368;--line:#c4c7c5;--field:#fff;--accent:#0b57d0;--on-accent:#fff;--ok:#146c2e;--bad:#b3261e';
const dark =
  '--bg:#202124;--fg:#e8eaed;--muted:#a8abb0;--line:#5f6368;--field:#131314;--accent:#a8c7fa;--on-accent:#062e6f;--ok:#6dd58c;--bad:#f2b8b5';

const css = `
:host{display:block;position:relative;width:300px;max-width:100%}
*{box-sizing:border-box}
.box{${light};display:grid;grid-template-columns:minmax(0,1fr);gap:8px;width:100%;min-height:65px;padding:10px 12px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color-scheme:light}
@media (prefers-color-scheme:dark){.box:not(.light){${dark};color-scheme:dark}}
.box.dark{${dark};color-scheme:dark}
.box[hidden],[hidden]{display:none!important}
.row{display:flex;align-items:center;gap:8px;min-height:43px}
[data-state=challenge] .row{min-height:0}
.brand{margin-inline-start:auto;font-size:11px;color:var(--muted);letter-spacing:.02em}
.action{display:flex;align-items:center;gap:10px;padding:6px;margin:-6px;border:0;border-radius:6px;background:none;color:inherit;font:inherit;text-align:start;cursor:pointer}
.action[aria-disabled=true]{cursor:default}
.mark{flex:none;display:grid;place-items:center;width:26px;height:26px;border:2px solid var(--muted);border-radius:4px;background:var(--field);color:var(--on-accent);font-weight:700;font-size:16px;line-height:1}
[data-state=working] .mark{border-color:var(--accent) var(--line) var(--line);border-radius:50%;animation:spin .8s linear infinite}
[data-state=success] .mark{border-color:var(--ok);background:var(--ok)}
[data-state=success] .mark::after{content:"\\2713";color:var(--bg)}
[data-state=error] .mark{border-color:var(--bad)}
[data-state=error] .mark::after{content:"!";color:var(--bad)}
@keyframes spin{to{transform:rotate(1turn)}}
.panel{display:grid;grid-template-columns:minmax(0,1fr);gap:6px}
.prompt{font-weight:600;font-size:13px}
.box:not([data-state=challenge]) .prompt{display:none}
.figure{display:flex;align-items:center;gap:8px}
img{display:block;width:220px;max-width:100%;height:auto;aspect-ratio:11/4;border:1px solid var(--line);border-radius:4px;background:#fff}
.answer{display:flex;gap:6px}
input{flex:1;min-width:0;padding:6px 8px;border:1px solid var(--muted);border-radius:4px;background:var(--field);color:var(--fg);font:16px/1.3 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.08em}
.btn{padding:6px 12px;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;cursor:pointer}
.btn.icon{flex:none;width:40px;height:40px;padding:0;background:transparent;color:var(--accent);font-size:22px;line-height:1}
.btn[aria-disabled=true]{opacity:.55;cursor:default}
.link{justify-self:start;min-height:24px;padding:2px 0;border:0;background:none;color:var(--accent);font:inherit;font-size:13px;text-decoration:underline;cursor:pointer}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
input:focus-visible{outline-offset:0}
progress{width:100%;height:6px;accent-color:var(--accent)}
.status{margin:0;font-size:13px;color:var(--muted)}
/* Kept in the accessibility tree when empty, so what it says next is announced. */
.sr,.status:empty{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
[data-state=error] .status,.status.bad{color:var(--bad)}
[data-state=success] .status{color:var(--ok)}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important}[data-state=working] .mark{border-style:dotted;border-radius:4px}}
@media (forced-colors:active){.mark,.btn,input,img{border-color:CanvasText}}
`;

let sheet: CSSStyleSheet | undefined;

/** Constructed stylesheets are not subject to a page's CSP style-src; a <style> is the fallback. */
function style(root: ShadowRoot): void {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    const el = document.createElement('style');
    el.textContent = css;
    root.append(el);
  }
}

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

let serial = 0;

/** Builds the widget's tree under a new host element. */
export function buildView(s: Strings, theme: string, lang: string): View {
  const host = h('div', { class: 'auditcaptcha-widget' });
  const root = host.attachShadow({ mode: 'open' });
  style(root);
  const n = ++serial;
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', id: `s${n}` });
  const actionText = h('span', {}, s.verify);
  const action = h(
    'button',
    { type: 'button', class: 'action', role: 'checkbox', 'aria-checked': 'false', 'aria-describedby': `s${n}` },
    h('span', { class: 'mark', 'aria-hidden': 'true' }),
    actionText,
  );
  const image = h('img', { alt: s.imageAlt, width: '220', height: '80' });
  const answer = h('input', {
    id: `a${n}`,
    type: 'text',
    autocomplete: 'off',
    autocapitalize: 'characters',
    spellcheck: 'false',
    maxlength: '32',
    'aria-describedby': `s${n}`,
  });
  const submit = h('button', { type: 'button', class: 'btn' }, s.submit);
  const refresh = h(
    'button',
    { type: 'button', class: 'btn icon', 'aria-label': s.refresh, title: s.refresh },
    h('span', { 'aria-hidden': 'true' }, '\u21bb'),
  );
  const noImage = h('button', { type: 'button', class: 'link', 'aria-describedby': `s${n}`, hidden: '' }, s.noImage);
  const panel = h(
    'div',
    { class: 'panel', hidden: '' },
    h('div', { class: 'figure' }, image, refresh),
    h('div', { class: 'answer' }, answer, submit),
    noImage,
  );
  const progress = h('progress', { max: '100', value: '0', 'aria-label': s.progress, hidden: '' });
  const box = h(
    'div',
    {
      class: `box ${theme === 'dark' || theme === 'light' ? theme : ''}`,
      role: 'group',
      'aria-label': s.label,
      lang,
      'data-state': 'idle',
    },
    h(
      'div',
      { class: 'row' },
      action,
      h('label', { class: 'prompt', for: `a${n}` }, s.prompt),
      h('span', { class: 'brand', 'aria-hidden': 'true' }, 'auditcaptcha'),
    ),
    panel,
    progress,
    status,
  );
  root.append(box);
  return { host, box, action, actionText, panel, image, answer, submit, refresh, noImage, progress, status };
}
