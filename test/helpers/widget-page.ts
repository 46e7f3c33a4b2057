/**
 * A customer's page for the adversary tests and bench: served on 127.0.0.1 (its own origin,
 * which the test registers on its site), embedding the service's widget exactly as
 * docs/challenges.md does (`<script src="{service}/widget.js" async defer>` and a
 * `[data-sitekey]` element in a form), in one of the three modes. The page reports to this
 * server by `fetch`, since a person's browser (person.ts) cannot be read from outside:
 *
 * - `geometry` on load: `window.screenX/Y`, the browser's chrome height (`outerHeight -
 *   innerHeight`) and the rect of the page's first focusable control, so a test can click it;
 * - `token` from the widget's `data-callback` (managed, explicit) or from
 *   `auditcaptcha.execute(sitekey, {action})` (invisible: the page's "Sign in" button runs it);
 * - `error` from `data-error-callback`;
 * - `state` whenever the widget's `data-state`, the focused control's label or whether the
 *   no-image button shows changes (polled every 100 ms through the widget's open shadow root).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type WidgetMode = 'managed' | 'invisible' | 'explicit';

/** One report the page sent: its kind and fields. */
export interface PageReport {
  /** `geometry`, `token`, `error`, `state`, or `form` (a form posted to the page server). */
  kind: string;
  page: string;
  [field: string]: unknown;
}

export interface WidgetPage {
  /** The page server's origin (register it on the site). */
  origin: string;
  /** Everything the pages reported, oldest first. */
  reports: PageReport[];
  /** The URL of a page embedding the widget for `sitekey` in `mode`; `id` tells its reports apart. */
  url(mode: WidgetMode, sitekey: string, id?: string): string;
  /** The first report of `kind` from page `id` that `match` accepts (undefined until it comes). */
  report(kind: string, id?: string, match?: (r: PageReport) => boolean): PageReport | undefined;
  close(): Promise<void>;
}

/** The page's own script: the callbacks and the reports. */
const script = (id: string, sitekey: string, mode: WidgetMode) => `
<script>
  const report = (kind, fields) => fetch('/report', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind, page: ${JSON.stringify(id)}, ...fields }), keepalive: true,
  });
  function onToken(token) { report('token', { token }); }
  function onError(code) { report('error', { code }); }
  function signIn() {
    if (!window.auditcaptcha) return report('error', { code: 'not-loaded' });
    auditcaptcha.execute(${JSON.stringify(sitekey)}, { action: 'login' }).then(onToken, (e) => onError(String(e)));
  }
  // The widget's state and the focused control, reported on each change (its shadow root is open).
  let last = '';
  const describe = (el) => el ? (el.getAttribute('aria-label') || el.textContent.trim().slice(0, 60) || el.tagName) : '';
  setInterval(() => {
    const host = document.querySelector('.auditcaptcha-widget');
    const inner = host && host.shadowRoot;
    const box = inner && inner.querySelector('[data-state]');
    const active = document.activeElement === host ? inner.activeElement : document.activeElement;
    const noImage = inner && inner.querySelector('.link');
    const now = { state: box ? box.dataset.state : '', focus: describe(active), noImage: !!noImage && !noImage.hidden };
    const key = JSON.stringify(now);
    if (key !== last) { last = key; report('state', now); }
  }, 100);
  addEventListener('load', () => {
    const first = document.querySelector('input,button');
    const r = first.getBoundingClientRect();
    report('geometry', {
      mode: ${JSON.stringify(mode)}, screenX, screenY, chrome: outerHeight - innerHeight,
      chromeWidth: outerWidth - innerWidth, first: { x: r.x, y: r.y, width: r.width, height: r.height },
    });
  });
</script>`;

function pageHtml(service: string, mode: WidgetMode, sitekey: string, id: string): string {
  const widget =
    mode === 'invisible'
      ? `<div data-sitekey="${sitekey}" data-mode="invisible" data-action="login" data-error-callback="onError"></div>
<button type="button" id="signin" onclick="signIn()">Sign in</button>`
      : `<div data-sitekey="${sitekey}" data-mode="${mode}" data-callback="onToken" data-error-callback="onError"></div>
<button type="submit">Sign up</button>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop: ${mode}</title>
<style>body{font:16px system-ui,sans-serif;margin:24px}form{display:grid;gap:12px;justify-items:start}</style>
${script(id, sitekey, mode)}
<script src="${service}/widget.js" async defer></script></head>
<body><form method="post" action="/signup">
<label>Name <input name="name" id="name" autocomplete="off"></label>
${widget}
</form></body></html>`;
}

/** Starts the page server for the service at `service` (its base URL). */
export async function startWidgetPage(service: string): Promise<WidgetPage> {
  const reports: PageReport[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d.length + body.length > 1_000_000 ? '' : d));
      req.on('end', () => {
        if (url.pathname === '/report') {
          try {
            reports.push(JSON.parse(body) as PageReport);
          } catch {
            // not a report
          }
        } else {
          reports.push({ kind: 'form', page: url.pathname, ...Object.fromEntries(new URLSearchParams(body)) });
        }
        res.setHeader('Content-Type', 'text/plain');
        res.end('ok');
      });
      return;
    }
    const mode = url.searchParams.get('mode') as WidgetMode | null;
    const sitekey = url.searchParams.get('sitekey');
    if (url.pathname !== '/page' || !mode || !sitekey || !['managed', 'invisible', 'explicit'].includes(mode)) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(pageHtml(service, mode, sitekey, url.searchParams.get('id') ?? ''));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    reports,
    url: (mode, sitekey, id = '') => `${origin}/page?${new URLSearchParams({ mode, sitekey, id }).toString()}`,
    report: (kind, id, match) =>
      reports.find((r) => r.kind === kind && (id === undefined || r.page === id) && (!match || match(r))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
