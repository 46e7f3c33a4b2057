import { escapeHtml } from './share-page/index.ts';

/** A score at or above this counts as human on the demo's v3 form (reCAPTCHA's usual default). */
export const DEMO_SCORE_THRESHOLD = 0.5;

const modes = {
  managed: { title: 'Managed', action: 'demo_managed' },
  explicit: { title: 'Image challenge', action: 'demo_explicit' },
  invisible: { title: 'Invisible (score)', action: 'demo_invisible' },
} as const;

export type DemoMode = keyof typeof modes;

export function isDemoMode(value: unknown): value is DemoMode {
  return typeof value === 'string' && Object.hasOwn(modes, value);
}

const styles = `
:root{color-scheme:light dark;--line:#c4c7c5;--muted:#5f6368;--ok:#146c2e;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--line:#5f6368;--muted:#a8abb0;--ok:#6dd58c;--bad:#f2b8b5}}
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
section{border:1px solid var(--line);border-radius:8px;padding:0 1.2rem 1.2rem;margin:1.5rem 0}
form{display:grid;gap:.8rem;justify-items:start}
label{display:grid;gap:.2rem}
input[type=text]{font:inherit;padding:.35rem .5rem;min-width:16rem}
button{font:inherit;padding:.45rem 1.1rem;cursor:pointer}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.muted{color:var(--muted)}
.notice{border-left:4px solid var(--bad);padding:.4rem .8rem}
.ok{color:var(--ok)}.bad{color:var(--bad)}
table{border-collapse:collapse}td,th{text-align:left;padding:.3rem .8rem .3rem 0;border-bottom:1px solid var(--line);vertical-align:top}
pre{white-space:pre-wrap;word-break:break-all}
`;

function layout(title: string, nonce: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${styles}</style>${head}</head>
<body><main>${body}</main></body></html>`;
}

export interface DemoPageInput {
  sitekey: string;
  /** Absolute URL of widget.js, on the other loopback name than the page (a cross-origin embed). */
  widgetUrl: string;
  nonce: string;
  /** Set when the page's origin is not registered for the demo site. */
  wrongOrigin?: { origin: string; use: string };
}

function form(mode: DemoMode, sitekey: string, explain: string): string {
  const m = modes[mode];
  const id = `${mode}-name`;
  return `<section aria-labelledby="${mode}-title">
<h2 id="${mode}-title">${m.title}</h2>
<p class="muted">${explain}</p>
<form method="post" action="/demo/verify" id="${mode}-form">
<input type="hidden" name="mode" value="${mode}">
<label for="${id}">Your name <input type="text" id="${id}" name="name" autocomplete="name"></label>
<div data-sitekey="${escapeHtml(sitekey)}" data-mode="${mode}" data-action="${m.action}" data-response-field-aliases="turnstile"></div>
<button type="submit">Send</button>
</form>
</section>`;
}

/** GET /demo: one form per widget mode, each verified by the demo's server at POST /demo/verify. */
export function renderDemoPage(input: DemoPageInput): string {
  const notice = input.wrongOrigin
    ? `<p class="notice" role="alert">This page is open on <code>${escapeHtml(input.wrongOrigin.origin)}</code>, which the demo site does not list.
Open <a href="${escapeHtml(input.wrongOrigin.use)}">${escapeHtml(input.wrongOrigin.use)}</a> instead.</p>`
    : '';
  return layout(
    'auditcaptcha widget demo',
    input.nonce,
    `<h1>auditcaptcha widget demo</h1>
${notice}
<p>Each form embeds <code>widget.js</code> from <code>${escapeHtml(new URL(input.widgetUrl).origin)}</code>, a different origin from this page,
as a real site would. Sending a form posts the token to this demo's server, which redeems it once with the
demo site's secret through the verifier behind <code>POST /api/v1/siteverify</code> and shows the verdict.</p>
<p class="muted">Demo sitekey <code>${escapeHtml(input.sitekey)}</code>. The secret stays on the server.</p>
${form('managed', input.sitekey, 'The service decides from risk signals: pass at once, a proof of work solved in the background, or an image challenge. Activate the box, then send.')}
${form('explicit', input.sitekey, 'Always the image challenge: type the characters, then send.')}
${form('invisible', input.sitekey, 'Nothing to do: sending fetches a score token (v3). Only the server learns the score.')}`,
    `\n<script src="${escapeHtml(input.widgetUrl)}" async defer></script>`,
  );
}

export interface VerdictPageInput {
  mode: DemoMode;
  nonce: string;
  verdict: Record<string, unknown> | null;
  name?: string;
}

/** POST /demo/verify: what siteverify said about the token the form carried. */
export function renderVerdictPage(input: VerdictPageInput): string {
  const v = input.verdict ?? {};
  const success = v.success === true;
  const score = typeof v.score === 'number' ? v.score : undefined;
  const human = score === undefined ? success : success && score >= DEMO_SCORE_THRESHOLD;
  const rows = ['success', 'error-codes', 'hostname', 'challenge_ts', 'action', 'cdata', 'score', 'reasons']
    .filter((k) => k in v)
    .map(
      (k) =>
        `<tr><th scope="row">${escapeHtml(k)}</th><td id="verdict-${escapeHtml(k)}"><code>${escapeHtml(JSON.stringify(v[k]))}</code></td></tr>`,
    )
    .join('\n');
  const scoreLine =
    score === undefined
      ? ''
      : `<p id="score">Score <strong>${score.toFixed(2)}</strong>: ${
          score >= DEMO_SCORE_THRESHOLD
            ? `at or above the demo's threshold of ${DEMO_SCORE_THRESHOLD}, so the form is accepted.`
            : `below the demo's threshold of ${DEMO_SCORE_THRESHOLD}, which is also the site's minimum score: siteverify refused the token (invalid-input-response), and a real site would ask for more proof (the image challenge) or reject.`
        }</p>`;
  return layout(
    'Demo verdict',
    input.nonce,
    `<h1 id="verdict" class="${human ? 'ok' : 'bad'}">${human ? 'Verified' : 'Not verified'}</h1>
<p>Form: ${escapeHtml(modes[input.mode].title)}${input.name ? `; name ${escapeHtml(input.name)}` : ''}. The siteverify verifier's answer:</p>
${scoreLine}
<table><tbody>
${rows}
</tbody></table>
<p><a href="/demo">Back to the demo</a></p>`,
  );
}

/** GET /demo when no demo site is registered (the service was not started embedded). */
export function renderNoDemoPage(nonce: string): string {
  return layout(
    'Demo not available',
    nonce,
    `<h1>Demo not available</h1><p>The widget demo runs on the embedded start (<code>npm start</code> without <code>DATABASE_URL</code>).</p>`,
  );
}

/** POST /demo/verify past its per-address limit. */
export function renderDemoLimitPage(nonce: string, retryAfter: number): string {
  return layout(
    'Too many demo verifications',
    nonce,
    `<h1>Too many demo verifications</h1><p>This address has sent the demo forms too often; try again in ${retryAfter} s.</p>`,
  );
}
