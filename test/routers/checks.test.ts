/**
 * GET /api/v1/checks through the real HTTP stack: the catalogue names every check of real
 * reports (the analyzer run on local fixture pages), with the configured weights; bad input
 * and missing keys answer in the documented error shape; report shapes stay phpRank's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let key: string;

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true', ANALYZER_WEIGHTS: '{"low": 1}' } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  ({ key } = await createKeyedUser(services, 'catalogue'));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;

interface Described {
  id: string;
  category: string;
  importance: 'high' | 'medium' | 'low';
  weight: number;
  scored_in: 'report' | 'accessibility';
  title: string;
  description: string;
  fix: string;
  unit: string;
  format: { type: string };
}

describe('GET /api/v1/checks', () => {
  it('names every check of real reports, in words, with unit, format and the configured weight', async () => {
    const res = await request<{ data: Described[]; meta: { locale: string; locales: string[]; total: number } }>(
      api('/api/v1/checks'),
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ locale: 'en', locales: ['en'], total: res.body.data.length });
    const byId = new Map(res.body.data.map((c) => [c.id, c]));
    expect(byId.size).toBe(59 + 57);
    expect(byId.has('nonexistent_check')).toBe(false);

    for (const path of ['/good', '/poor']) {
      const report = await request(api('/api/v1/reports'), {
        method: 'POST',
        key,
        form: { url: `${site.url}${path}` },
      });
      expect(report.status).toBe(201);
      const results = report.body.data.results as Record<string, { importance: string; category: string }>;
      expect(Object.keys(results).length).toBeGreaterThan(40);
      for (const [id, entry] of Object.entries(results)) {
        const described = byId.get(id);
        expect(described, id).toBeDefined();
        expect(described).toMatchObject({ category: entry.category, importance: entry.importance });
      }
    }
    for (const c of byId.values()) {
      for (const field of ['title', 'description', 'fix', 'unit'] as const)
        expect(c[field], `${c.id} ${field}`).toBeTruthy();
      if (c.category === 'accessibility') continue;
      expect(c.scored_in).toBe('report');
      expect(c.weight).toBe({ high: 10, medium: 5, low: 1 }[c.importance]);
    }
    // Accessibility checks carry Lighthouse's weight in the accessibility score, not ANALYZER_WEIGHTS.
    const a11y = res.body.data.filter((c) => c.category === 'accessibility');
    expect(a11y).toHaveLength(57);
    for (const c of a11y) {
      expect(c.id).toMatch(/^a11y_[a-z_]+$/);
      expect(c.scored_in).toBe('accessibility');
      expect([0, 1, 3, 7, 10]).toContain(c.weight);
      expect(c.format).toMatchObject({ type: 'fields' });
    }
    expect(byId.get('a11y_image_alt')).toMatchObject({ weight: 10, importance: 'high', source: 'rendered' });
    expect(byId.get('a11y_color_contrast')).toMatchObject({ weight: 7, importance: 'medium' });
    expect(byId.get('a11y_heading_order')).toMatchObject({ weight: 3, importance: 'low' });
    expect(byId.get('load_time')).toMatchObject({ title: 'Server response time', unit: 'milliseconds' });
  });

  it('takes locale=en; another locale is a 422 in the documented shape', async () => {
    expect((await request(api('/api/v1/checks?locale=en'), { key })).status).toBe(200);
    const bad = await request(api('/api/v1/checks?locale=xx'), { key });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'ERR_VALIDATION', status: 422, errors: { locale: [expect.any(String)] } });
  });

  it('needs an API key, like every area A route', async () => {
    const res = await request(api('/api/v1/checks'));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'ERR_API_KEY_MISSING', status: 401 });
  });

  it('leaves the report shape as phpRank’s clients read it', async () => {
    const report = await request(api('/api/v1/reports'), { method: 'POST', key, form: { url: `${site.url}/poor` } });
    expect(Object.keys(report.body.data).sort()).toEqual(
      [
        'id',
        'url',
        'project',
        'result',
        'score',
        'results',
        'privacy',
        'password',
        'share_url',
        // Ours beside phpRank's: the category summaries and the lab runs' medians (docs/reports.md).
        'categories',
        'lab',
        'generated_at',
        'created_at',
        'updated_at',
      ].sort(),
    );
    for (const entry of Object.values(report.body.data.results as Record<string, Record<string, unknown>>)) {
      const keys = Object.keys(entry);
      expect(
        keys.filter((k) => !['passed', 'importance', 'value', 'errors', 'category', 'details'].includes(k)),
      ).toEqual([]);
      expect('title' in entry || 'description' in entry).toBe(false);
    }
  });
});
