/**
 * Fixture pages for the rendering analyzer and bench/lighthouse: server- and client-rendered,
 * good and poor. Every page is served from one fixture server; `renderPages` lists them with
 * what a correct audit should find.
 */
import { Jimp } from 'jimp';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { goodPath, goodSite, poorPage, poorHeaders, prose } from '../fixtures/pages.ts';
import type { FixtureHandler } from '../fixtures/server.ts';

/** Debian's Chromium (ANALYZER_CHROMIUM_PATH overrides). */
export const chromiumPath = process.env['ANALYZER_CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const html = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'max-age=60' };
export const js = { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' };
const css = { 'content-type': 'text/css', 'cache-control': 'max-age=3600' };

/** One fixture page. */
export interface RenderFixture {
  path: string;
  kind: 'server' | 'client';
  quality: 'good' | 'poor';
  what: string;
}

/**
 * Page script: a promise that settles once the page has loaded and first painted, for work a
 * fixture does after both, whichever comes first on a given machine.
 */
export const afterLoadAndFirstPaint = `Promise.all([
    new Promise((resolve) => new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName('first-contentful-paint').length) { observer.disconnect(); resolve(); }
    }).observe({ type: 'paint', buffered: true })),
    new Promise((resolve) => addEventListener('load', resolve)),
  ])`;

/** A noisy JPEG of `width` x `height` (noise keeps it from compressing away). */
export async function noisyJpeg(width: number, height: number, seed = 1): Promise<Buffer> {
  const image = new Jimp({ width, height, color: 0xffffffff });
  let x = seed * 2654435761;
  const data = image.bitmap.data;
  for (let i = 0; i < data.length; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    data[i] = x & 0xff;
    data[i + 1] = (x >>> 8) & 0xff;
    data[i + 2] = (x >>> 16) & 0xff;
  }
  return image.getBuffer('image/jpeg', { quality: 80 });
}

/** The head of a fixture page: title, description, viewport, charset, `extra` markup. */
export function head(title: string, extra = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="A fixture page for the rendering analyzer: ${title}.">
<link rel="icon" href="data:,">
${extra}</head>`;
}

/** The client-rendered shell: no title, no heading, no links until app.js runs. */
export const clientShell = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title></title>
<link rel="icon" href="data:,">
<script src="/csr/app.js" defer></script></head><body><div id="root"></div></body></html>`;

/** What app.js builds: the title, a description, one h1, links and prose. */
export const clientApp = `(() => {
  document.title = 'Coffee Brewing Guide: Methods and Tips';
  const meta = document.createElement('meta');
  meta.name = 'description';
  meta.content = 'A practical guide to brewing coffee at home, rendered in the browser.';
  document.head.appendChild(meta);
  const root = document.getElementById('root');
  root.innerHTML = '<h1>Brewing coffee at home</h1>' +
    '<nav><a href="/csr/methods">Methods</a> <a href="/csr/grind">Grind sizes</a> <a href="/csr/ratios">Ratios</a></nav>' +
    ${JSON.stringify(prose(600))};
})();`;

/**
 * A client-rendered page done badly: no title, console errors, and a long "hydration" task once
 * its content has painted. The script is deferred, so #app exists when it runs.
 */
export const clientPoorShell = `<!doctype html><html><head><meta charset="utf-8"><title></title>
<script src="/csr-poor/app.js" defer></script></head><body><div id="app"></div></body></html>`;

export const clientPoorApp = `(() => {
  document.getElementById('app').innerHTML = '<div>loading...</div><p>' + 'words '.repeat(20) + '</p>';
  console.error('Failed to hydrate the store');
  // Two frames later the content has painted; hydration then blocks the main thread.
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    const until = performance.now() + 600;
    while (performance.now() < until) {}
    throw new Error('boom in a timer');
  }, 0)));
})();`;

/** A slow, shifting page: a late stylesheet delays paint, banners push content down, a long task blocks. */
export function slowShiftingPage(): string {
  return `${head('Slow and shifting page', '<link rel="stylesheet" href="/slow/late.css">')}
<body><main id="main"><h1>Slow and shifting</h1>${prose(300)}</main>
<script>
  // After load, four banners push the content down, 150 ms apart, then a long task blocks.
  let n = 0;
  const addBanner = () => {
    const banner = document.createElement('div');
    banner.style.height = '220px';
    banner.textContent = 'Banner ' + (++n);
    document.body.insertBefore(banner, document.body.firstChild);
    if (n < 4) setTimeout(addBanner, 150);
    else setTimeout(() => { const until = performance.now() + 450; while (performance.now() < until) {} }, 100);
  };
  addEventListener('load', () => setTimeout(addBanner, 200));
</script></body></html>`;
}

/** A lean page: inline style, text, nothing blocking. */
export function leanPage(): string {
  return `${head('Lean page about coffee', '<style>body{font:16px/1.5 sans-serif;max-width:40rem;margin:auto}</style>')}
<body><main><h1>Coffee, lean and fast</h1>${prose(300)}<p><a href="/lean/more">More</a></p></main></body></html>`;
}

/**
 * Big images shown small, and images far below the fold without lazy loading (more than four
 * viewports down: Lighthouse counts the first viewport and three more below as visible). A
 * hydration-like task at load (120 ms) makes the page interactive only after its images were
 * requested, however busy the machine: both tools flag offscreen images requested before then.
 */
export function imagesPage(): string {
  const below = [1, 2, 3]
    .map((i) => `<img src="/img/below-${i}.jpg" width="600" height="400" alt="Below ${i}">`)
    .join('\n');
  return `${head('Images page', '<style>body{margin:0}.spacer{height:4200px}</style>')}
<body><h1>Images</h1><img src="/img/huge.jpg" width="200" height="150" alt="Huge image shown small">
${prose(200)}<div class="spacer"></div>${below}
<script>
  // A task after load and after the first paint, so the page becomes interactive after its
  // images were requested. At load alone it raced the first paint: whichever came first (how
  // fast loopback served the images) decided first paint and blocking time.
  ${afterLoadAndFirstPaint}.then(() => { const until = performance.now() + 120; while (performance.now() < until) {} });
</script>
</body></html>`;
}

/** Render-blocking head resources and a console error on an otherwise fine page. */
export function blockingPage(): string {
  return `${head('Blocking scripts page', '<link rel="stylesheet" href="/blocking/a.css"><script src="/blocking/b.js"></script>')}
<body><h1>Blocking resources</h1>${prose(300)}<script>console.error('an error from the page')</script></body></html>`;
}

/** `route`, answered after `delayMs`. */
export function delayed(
  route: { headers: Record<string, string>; body: string | Buffer },
  delayMs: number,
): FixtureHandler {
  return (_req: IncomingMessage, res: ServerResponse) => {
    setTimeout(() => {
      res.writeHead(200, route.headers);
      res.end(route.body);
    }, delayMs);
  };
}

/** The fixture pages and what they are. */
export const renderPages: RenderFixture[] = [
  { path: goodPath, kind: 'server', quality: 'good', what: 'server-rendered, well built' },
  { path: '/poor', kind: 'server', quality: 'poor', what: 'server-rendered, poor markup' },
  { path: '/lean', kind: 'server', quality: 'good', what: 'server-rendered, lean' },
  { path: '/slow', kind: 'server', quality: 'poor', what: 'late stylesheet, layout shifts, long task' },
  { path: '/images', kind: 'server', quality: 'poor', what: 'oversized and offscreen images' },
  { path: '/blocking', kind: 'server', quality: 'poor', what: 'render-blocking head resources, console error' },
  { path: '/csr', kind: 'client', quality: 'good', what: 'client-rendered, good content' },
  { path: '/csr-poor', kind: 'client', quality: 'poor', what: 'client-rendered, long task, no title, errors' },
];

/** Routes for every page in {@link renderPages}, served at `origin`. */
export async function renderSite(origin: string): Promise<Record<string, FixtureHandler>> {
  const [huge, below, photo] = await Promise.all([
    noisyJpeg(1600, 1200, 1),
    noisyJpeg(600, 400, 2),
    noisyJpeg(640, 480, 3),
  ]);
  const jpeg = { 'content-type': 'image/jpeg', 'cache-control': 'max-age=3600' };
  const image = (type: string) => ({ headers: { ...jpeg, 'content-type': type }, body: photo });
  return {
    ...goodSite(origin),
    // The well-built page's images exist. Missing, each became its alt text when its error
    // came, a layout shift of 0.13 or none depending on whether the first layout came first.
    // Chromium decodes images by their bytes: one JPEG serves every name, each sent with the
    // type its name says, which is what both tools read for the image format.
    '/img/beans.avif': image('image/avif'),
    '/img/beans.jpg': image('image/jpeg'),
    '/img/kettle.webp': image('image/webp'),
    '/img/logo.svg': {
      headers: { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=3600' },
      body: '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="#6b4226"/></svg>',
    },
    '/poor': { headers: { ...poorHeaders, 'content-type': 'text/html' }, body: poorPage() },
    '/lean': { headers: html, body: leanPage() },
    '/slow': { headers: html, body: slowShiftingPage() },
    '/slow/late.css': delayed({ headers: css, body: 'main{color:#222}' }, 1500),
    '/images': { headers: html, body: imagesPage() },
    '/img/huge.jpg': { headers: jpeg, body: huge },
    '/img/below-1.jpg': { headers: jpeg, body: below },
    '/img/below-2.jpg': { headers: jpeg, body: below },
    '/img/below-3.jpg': { headers: jpeg, body: below },
    '/blocking': { headers: html, body: blockingPage() },
    '/blocking/a.css': delayed({ headers: css, body: 'h1{color:#333}' }, 300),
    '/blocking/b.js': delayed({ headers: js, body: 'window.b = 1;' }, 300),
    '/csr': { headers: html, body: clientShell },
    '/csr/app.js': { headers: js, body: clientApp },
    '/csr-poor': { headers: { 'content-type': 'text/html' }, body: clientPoorShell },
    '/csr-poor/app.js': { headers: js, body: clientPoorApp },
  };
}
