/**
 * Every analysis keeps its deadline on every path (issue 40, item 6), through the real HTTP
 * stack: a Chromium that never starts (a script that sleeps) cannot hold a rendered report past
 * the analysis' deadline nor the key's slots, and a client that goes away mid-analysis, in the
 * raw fetch or in the browser, frees its slot at once.
 */
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from '../../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  silentLog,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../../helpers/services.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath, head, html } from './fixtures.ts';

const page = (title: string) =>
  `<!doctype html><html lang="en">${head(title)}<body><h1>${title}</h1><p>${'Words for the checks. '.repeat(40)}</p></body></html>`;

/** Command lines of every process whose command line mentions `needle`. */
async function processesWith(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) found.push(cmdline.replaceAll('\0', ' '));
  }
  return found;
}

/** A held response, answered (or dropped) when the test says. */
interface Held {
  seen: Promise<void>;
  closed: Promise<void>;
}

function holdOpen(): { handler: (res: ServerResponse) => void; held: Held; all: Set<ServerResponse> } {
  let seen!: () => void;
  let closed!: () => void;
  const all = new Set<ServerResponse>();
  const held: Held = {
    seen: new Promise((r) => (seen = r)),
    closed: new Promise((r) => (closed = r)),
  };
  return {
    all,
    held,
    handler: (res) => {
      all.add(res);
      res.on('close', () => closed());
      seen();
    },
  };
}

describe('a Chromium that never starts', () => {
  let services: TestServices;
  let server: TestServer;
  let site: FixtureServer;
  let key: string;
  let dir: string;
  let fakeChromium: string;
  // The script execs into this command: its process is found by it.
  const stuck = `sleep ${900_000 + Math.floor(Math.random() * 99_999)}`;
  const warn = vi.spyOn(silentLog, 'warn');

  beforeAll(async () => {
    // The sandbox launcher may drop to `nobody`: the script and its folder must be readable by all.
    dir = await mkdtemp(path.join(tmpdir(), 'never-chromium-'));
    await chmod(dir, 0o755);
    fakeChromium = path.join(dir, 'chromium');
    await writeFile(fakeChromium, `#!/bin/sh\nexec ${stuck}\n`);
    await chmod(fakeChromium, 0o755);
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_RENDER: 'auto',
        ANALYZER_CHROMIUM_PATH: fakeChromium,
        ANALYZER_TIMEOUT_MS: '5000',
        ANALYZER_KEY_CONCURRENCY: '1',
        ANALYZER_KEY_WAIT_MS: '2000',
      },
    });
    server = await startTestServer(services);
    site = await startFixtureServer({
      '/page': { headers: html, body: page('A page') },
      '/other': { headers: html, body: page('Another page') },
    });
    ({ key } = await createKeyedUser(services, 'never-started'));
    // The engine (check workers, the browser driver) loads on a process' first analysis.
    expect((await create(`${site.origin}/other`, '0')).status).toBe(201);
    warn.mockClear();
  });

  afterAll(async () => {
    warn.mockRestore();
    await server?.close();
    await site?.close();
    await services?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  const create = (url: string, render: '0' | '1') =>
    request(`${server.url}/api/v1/reports`, { method: 'POST', key, form: { url, render, privacy: '0' } });

  it(
    'a rendered report is answered by the analysis deadline with its raw results, the browser stopped',
    // The deadline is 5 s; this bound only stops a hung test (the old code answered after 31 s).
    { timeout: 15_000 },
    async () => {
      const res = await create(`${site.origin}/page`, '1');
      expect(res.status).toBe(201);
      const results = res.body.data.results as Record<string, { passed: boolean; rendered?: boolean }>;
      expect(results['title']).toMatchObject({ passed: true });
      expect(Object.values(results).some((c) => c.rendered)).toBe(false);
      expect(results['largest_contentful_paint']).toBeUndefined();
      // One warning for the process, naming the bound; the stuck process was stopped.
      await vi.waitFor(() =>
        expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => /Rendering is off/.test(m))).toEqual([
          `Rendering is off: Chromium (${fakeChromium}) did not start within 5000 ms.`,
        ]),
      );
      await vi.waitFor(async () => expect(await processesWith(stuck)).toEqual([]), { timeout: 2000 });
    },
  );

  it('the same key’s next raw report is served: its slot was given back', { timeout: 15_000 }, async () => {
    const res = await create(`${site.origin}/other`, '0');
    expect(res.status).toBe(201);
    expect(res.body.data.results.title).toMatchObject({ passed: true });
  });

  it('rendering stays off for the process: later renders fall back at once, no second launch or warning', async () => {
    const res = await create(`${site.origin}/page`, '1');
    expect(res.status).toBe(201);
    expect(Object.values(res.body.data.results as Record<string, { rendered?: boolean }>).some((c) => c.rendered)).toBe(
      false,
    );
    expect(warn.mock.calls.filter((c) => /Rendering is off/.test(String(c[0])))).toHaveLength(1);
    expect(await processesWith(stuck)).toEqual([]);
  });
});

describe('a client that goes away mid-analysis', () => {
  let services: TestServices;
  let server: TestServer;
  let site: FixtureServer;
  let key: string;
  const rawHold = holdOpen();
  const browserHold = holdOpen();

  beforeAll(async () => {
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_RENDER: 'auto',
        ANALYZER_CHROMIUM_PATH: chromiumPath,
        ANALYZER_RENDER_CONTEXTS: '1',
        // Long deadlines: only the client's leaving can free the slot in time.
        ANALYZER_TIMEOUT_MS: '60000',
        ANALYZER_RENDER_TIMEOUT_MS: '60000',
        ANALYZER_KEY_CONCURRENCY: '1',
        // A slot that is not freed fails the next request (503) rather than hanging the test.
        ANALYZER_KEY_WAIT_MS: '4000',
      },
    });
    server = await startTestServer(services);
    site = await startFixtureServer({
      '/fast': { headers: html, body: page('Fast') },
      // Never answered: the analysis waits on it until its deadline, or until it is abandoned.
      '/hangs': (_req, res) => rawHold.handler(res),
      // Served to the analyzer's raw fetch, never to the browser.
      '/hangs-in-browser': (req, res) => {
        if (/WebsiteAnalyzer/.test(req.headers['user-agent'] ?? '')) {
          res.writeHead(200, html).end(page('Raw'));
        } else {
          browserHold.handler(res);
        }
      },
    });
    ({ key } = await createKeyedUser(services, 'leaver'));
  });

  afterAll(async () => {
    for (const res of [...rawHold.all, ...browserHold.all]) res.destroy();
    await server?.close();
    await site?.close();
    await services?.cleanup();
  });

  const create = (url: string, render: '0' | '1', signal?: AbortSignal) =>
    request(`${server.url}/api/v1/reports`, { method: 'POST', key, form: { url, render, privacy: '0' }, signal });

  /** Starts a report, drops its connection once `held` saw the analysis' request, then waits for that request to end. */
  async function abandon(url: string, render: '0' | '1', held: Held): Promise<void> {
    const client = new AbortController();
    const pending = create(url, render, client.signal).catch((err: unknown) => err);
    await held.seen;
    client.abort();
    expect(await pending).toBeInstanceOf(Error);
    // The analysis stopped: its own request to the page was dropped.
    await held.closed;
  }

  it(
    'while fetching the page: the analysis stops and the next report of the key runs',
    { timeout: 30_000 },
    async () => {
      await abandon(`${site.origin}/hangs`, '0', rawHold.held);
      const next = await create(`${site.origin}/fast`, '0');
      expect(next.status).toBe(201);
      expect(next.body.data.results.title).toMatchObject({ passed: true });
    },
  );

  // The render's own limit is 60 s: this bound fails a render that outlives its client.
  it('while rendering: the render stops and the next report of the key runs', { timeout: 30_000 }, async () => {
    await abandon(`${site.origin}/hangs-in-browser`, '1', browserHold.held);
    const next = await create(`${site.origin}/fast`, '0');
    expect(next.status).toBe(201);
    // The browser context was given back too: the next render of the key gets it.
    const rendered = await create(`${site.origin}/fast`, '1');
    expect(rendered.status).toBe(201);
    expect(rendered.body.data.results.title).toMatchObject({ passed: true, rendered: true });
  });
});
