/**
 * The automation frameworks of test/adversary/frameworks.ts against the widget on a customer's
 * page, at a site's default settings and on a site with `min_score` 0 (so the score shows):
 * none gets a v3 token accepted at the default minimum or a v2 pass, and each one's v3 score
 * is at most 0.3, from what the page and the request show (siteverify's `reasons` say which
 * signal). The person these signals must not trip is test/adversary/person.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { createTestSite, siteverify } from '../helpers/captcha.ts';
import { startWidgetPage, type WidgetPage } from '../helpers/widget-page.ts';
import { FRAMEWORKS, frameworksMissing, launchFramework, type Framework } from './frameworks.ts';

const skip = frameworksMissing && !process.env.CI;
let services: TestServices;
let server: TestServer;
let pages: WidgetPage;
type Site = { sitekey: string; secret: string };
/** Per framework: a site at the default minimum and one at 0, so no framework's pace counts against another. */
const sites: Record<string, { strict: Site; open: Site }> = {};

beforeAll(async () => {
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  pages = await startWidgetPage(server.url);
  for (const kind of FRAMEWORKS) {
    sites[kind] = {
      strict: await createTestSite(services, [pages.origin]),
      open: await createTestSite(services, [pages.origin], { min_score: 0 }),
    };
  }
}, 120_000);
afterAll(async () => {
  await pages?.close();
  await server?.close();
  await services?.cleanup();
});

/** Waits (at most `ms`) for page `id` to report a token or an error, or for `until` to hold. */
async function settle(id: string, ms: number, until?: () => boolean): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const token = pages.report('token', id)?.token as string | undefined;
    if (token) return token;
    if (pages.report('error', id) || until?.()) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

const verdictOf = async (site: Site, token: string) =>
  (await siteverify(server.url, { secret: site.secret, response: token })).body as {
    success: boolean;
    score?: number;
    reasons?: string[];
  };

describe.skipIf(skip)('off-the-shelf automation', () => {
  it.each(FRAMEWORKS)(
    '%s: v3 at most 0.3, refused at the default minimum; no v2 pass',
    { timeout: 240_000 },
    async (kind: Framework) => {
      const bot = await launchFramework(kind);
      try {
        // v3 on the site that lets every score through: the score shows.
        const open = `${kind}-v3-open`;
        await bot.visit(pages.url('invisible', sites[kind].open.sitekey, open));
        await bot.click('signin');
        const openToken = await settle(open, 60_000);
        expect(openToken, JSON.stringify(pages.report('error', open))).toBeTypeOf('string');
        const seen = await verdictOf(sites[kind].open, openToken!);
        console.log(`${kind}, v3: score ${seen.score} (${String(seen.reasons)})`);
        expect(seen.success).toBe(true);
        expect(seen.score).toBeLessThanOrEqual(0.3);

        // v3 at the default minimum: refused.
        const strict = `${kind}-v3-strict`;
        await bot.visit(pages.url('invisible', sites[kind].strict.sitekey, strict));
        await bot.click('signin');
        const strictToken = await settle(strict, 60_000);
        expect(strictToken).toBeTypeOf('string');
        const refused = await verdictOf(sites[kind].strict, strictToken!);
        expect(refused.success).toBe(false);
        expect(refused.reasons).toContain('below_site_minimum');

        // v2 (managed mode's box): the invisible work does not pass it; the image comes instead.
        const managed = `${kind}-v2`;
        await bot.visit(pages.url('managed', sites[kind].strict.sitekey, managed));
        await bot.tabAndSpace(2);
        const challenged = () => !!pages.report('state', managed, (r) => r.state === 'challenge');
        const passed = await settle(managed, 60_000, challenged);
        expect(passed, 'a v2 token without the image').toBeUndefined();
        expect(challenged(), 'the image challenge shown').toBe(true);
      } finally {
        await bot.close();
      }
    },
  );
});
