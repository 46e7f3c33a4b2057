/**
 * Rendering through the real HTTP stack: `render=0|1` on report create and re-analyse (our
 * extension), ANALYZER_RENDER=auto rendering a client-rendered shell by itself, and the share
 * page showing the lab measurements.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../../helpers/services.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath, renderSite } from './fixtures.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureServer;
let key: string;

beforeAll(async () => {
  services = await openTestServices({
    env: {
      ANALYZER_ALLOW_PRIVATE: 'true',
      ANALYZER_RENDER: 'auto',
      ANALYZER_CHROMIUM_PATH: chromiumPath,
      ANALYZER_RENDER_CONTEXTS: '1',
    },
  });
  server = await startTestServer(services);
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  site = await startFixtureServer(routes);
  Object.assign(routes, await renderSite(site.origin));
  ({ key } = await createKeyedUser(services, 'renderer'));
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;
type Check = { passed: boolean; value: unknown; rendered?: boolean };
const find = (results: Record<string, Check>, id: string) => results[id];

describe('render=0|1 on the reports API', () => {
  it('auto renders a client-rendered shell; render=0 keeps the raw HTML', { timeout: 90_000 }, async () => {
    const raw = await request(api('/api/v1/reports'), {
      method: 'POST',
      key,
      form: { url: `${site.origin}/csr`, render: '0', privacy: '0' },
    });
    expect(raw.status).toBe(201);
    expect(find(raw.body.data.results, 'title')).toMatchObject({ passed: false });
    expect(find(raw.body.data.results, 'largest_contentful_paint')).toBeUndefined();

    const auto = await request(api('/api/v1/reports'), {
      method: 'POST',
      key,
      json: { url: `${site.origin}/csr`, privacy: 0 },
    });
    expect(auto.status).toBe(201);
    expect(find(auto.body.data.results, 'title')).toMatchObject({ passed: true, rendered: true });
    expect(find(auto.body.data.results, 'headings')).toMatchObject({ passed: true, rendered: true });
    expect(auto.body.data.score).toBeGreaterThan(raw.body.data.score);

    const shareUrl = auto.body.data.share_url as string;
    const page = await fetch(shareUrl.startsWith('http') ? shareUrl : api(shareUrl));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Lab measurements');
    expect(html).toMatch(/Largest contentful paint/i);
    expect(html).not.toMatch(/<script/i);
  });

  it(
    'render=1 on re-analyse renders a server-rendered page; render accepts only 0 or 1',
    { timeout: 90_000 },
    async () => {
      const created = await request(api('/api/v1/reports'), {
        method: 'POST',
        key,
        form: { url: `${site.origin}/lean` },
      });
      expect(find(created.body.data.results, 'largest_contentful_paint')).toBeUndefined();
      const id = created.body.data.id as number;
      const updated = await request(api(`/api/v1/reports/${id}`), {
        method: 'PUT',
        key,
        form: { results: '1', render: '1' },
      });
      expect(updated.status).toBe(200);
      // Measured, not judged: whether it passes depends on this machine's load, not on the page.
      expect(find(updated.body.data.results, 'largest_contentful_paint')).toMatchObject({
        rendered: true,
        value: { ms: expect.any(Number) },
      });
      const bad = await request(api('/api/v1/reports'), {
        method: 'POST',
        key,
        form: { url: `${site.origin}/lean`, render: 'yes' },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.render).toBeDefined();
    },
  );
});
