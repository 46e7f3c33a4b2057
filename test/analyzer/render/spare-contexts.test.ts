/**
 * Contexts made ahead of their renders, in real Chromium: a spare lets nothing out until a
 * render hands it its guard, and no render ever gets a context (or page) another render used.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressGuard } from '../../../src/analyzer/address-guard.ts';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import { BrowserPool } from '../../../src/analyzer/render/browser.ts';
import { refusedHeader } from '../../../src/analyzer/render/proxy.ts';
import { renderPage } from '../../../src/analyzer/render/render.ts';
import { SpareContexts } from '../../../src/analyzer/render/spare-contexts.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath, head, html } from './fixtures.ts';

let server: FixtureServer;
let pool: BrowserPool;
const hits: string[] = [];
const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });
const limits = { timeoutMs: 15_000, maxBytes: 10e6, settleMs: 2000 };

beforeAll(async () => {
  expect(existsSync(chromiumPath), `Chromium at ${chromiumPath}`).toBe(true);
  // Says what this context's storage held before the page wrote to it, then writes.
  const visit = (req: IncomingMessage, res: ServerResponse): void => {
    hits.push(String(req.url));
    res.writeHead(200, html);
    res.end(`${head('Visit')}<body><h1 id="seen">?</h1><script>
document.getElementById('seen').textContent = 'before:' + (localStorage.getItem('mark') || 'none') +
  ' cookie:' + (document.cookie || 'none');
localStorage.setItem('mark', 'set');
document.cookie = 'mark=set; max-age=3600';
</script></body></html>`);
  };
  const paths = ['/visit/before', '/visit/after', '/visit/0', '/visit/1', '/visit/2'];
  server = await startFixtureServer(Object.fromEntries(paths.map((p) => [p, visit])));
  pool = new BrowserPool({ executablePath: chromiumPath, contexts: 1, maxHeapMb: 256, acquireTimeoutMs: 30_000 });
});

afterAll(async () => {
  await pool?.close();
  await server?.close();
});

describe('spare contexts', () => {
  it(
    'let nothing out before a render takes them, and only what its guard allows after',
    { timeout: 60_000 },
    async () => {
      const browser = await pool.browser();
      const refuseAll = () => ({
        guard: new AddressGuard({ allowPrivate: false, isAllowedAddress: () => false }),
        connectTimeoutMs: 1000,
        maxBytes: 0,
      });
      const spares = new SpareContexts(1, refuseAll);
      try {
        spares.fill(browser, {});
        const prepared = await spares.take(browser, {});
        hits.length = 0;
        // Not yet handed to an analysis: the proxy refuses the fixture server (a loopback address).
        const before = await prepared.page.goto(`${server.origin}/visit/before`);
        expect(await before?.headerValue(refusedHeader)).toBe('1');
        expect(hits).toEqual([]);
        prepared.proxy.assign({ guard: new AddressGuard(options), connectTimeoutMs: 1000, maxBytes: 1e6 });
        expect(prepared.proxy.blocked).toEqual([]);
        const after = await prepared.page.goto(`${server.origin}/visit/after`);
        expect(after?.status()).toBe(200);
        expect(hits).toEqual(['/visit/after']);
        await prepared.context.close();
        await prepared.proxy.close();
      } finally {
        await spares.close();
      }
    },
  );

  it(
    'give every render a context no other render used: storage and cookies start empty',
    { timeout: 60_000 },
    async () => {
      for (let i = 0; i < 3; i++) {
        const page = await renderPage(pool, `${server.origin}/visit/${i}`, options, limits);
        expect(page.status).toBe(200);
        expect(page.html).toContain('before:none cookie:none');
      }
    },
  );
});
