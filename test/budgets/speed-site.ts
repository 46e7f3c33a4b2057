/**
 * A local page whose speed a test sets: a server-side delay before the document is sent, a
 * script that blocks the main thread for a chosen time after the first paint, and a late
 * layout shift. 127.0.0.1 only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Speed {
  /** Wait before the document is answered, ms (moves FCP and LCP). */
  serverDelayMs: number;
  /** Busy main thread after the first paint, ms (moves TBT). */
  blockMs: number;
  /** Push the content down by 200 px this long after load (0: no shift); moves CLS. */
  shiftAfterMs: number;
}

export interface SpeedSite {
  url: string;
  speed: Speed;
  close(): Promise<void>;
}

const words = Array.from({ length: 300 }, (_, i) => ['steady', 'page', 'under', 'test'][i % 4]).join(' ');

function page(s: Speed): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Speed fixture</title>
<meta name="description" content="A page whose speed the test controls."></head>
<body><h1>Speed fixture</h1><div id="shift"></div><p>${words}</p>
<script>
const block = ${s.blockMs}, shift = ${s.shiftAfterMs};
new PerformanceObserver((list, observer) => {
  if (!list.getEntriesByName('first-contentful-paint').length) return;
  observer.disconnect();
  if (block > 0) setTimeout(() => { const end = performance.now() + block; while (performance.now() < end); }, 20);
}).observe({ type: 'paint', buffered: true });
if (shift > 0) addEventListener('load', () => setTimeout(() => { document.getElementById('shift').style.height = '200px'; }, shift));
</script></body></html>`;
}

export async function startSpeedSite(): Promise<SpeedSite> {
  const speed: Speed = { serverDelayMs: 0, blockMs: 0, shiftAfterMs: 0 };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt')
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (path !== '/') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const body = page(speed);
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), speed.serverDelayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    speed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
