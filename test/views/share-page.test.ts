/**
 * The share page of a real report (the analyzer run on a local fixture page) through the real
 * HTTP stack: failures costliest first with their fixes, every check in words with its value
 * formatted, no raw JSON and no raw check ids as headings, link-preview meta, the print
 * stylesheet, the same CSP and the password form unchanged.
 */
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueEntry } from '../../src/analyzer/checks/catalogue/index.ts';
import { checkDefinitions } from '../../src/analyzer/checks/definitions.ts';
import { accessibilityRules } from '../../src/analyzer/checks/accessibility-rules.ts';
import { accessibilityChecks } from '../../src/analyzer/render/accessibility-results.ts';
import { toEntry, type ResultEntry } from '../../src/reports/results.ts';
import { renderReportPage } from '../../views/share-page/index.ts';
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

const PUBLIC_URL = 'https://audit.example';
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true', PUBLIC_URL } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  ({ key } = await createKeyedUser(services, 'sharer'));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

type Results = Record<string, { passed: boolean; importance: string; value: unknown }>;

async function share(path: string, form: Record<string, string> = {}) {
  const created = await request(`${server.url}/api/v1/reports`, {
    method: 'POST',
    key,
    form: { url: `${site.url}${path}`, privacy: '0', ...form },
  });
  expect(created.status).toBe(201);
  const shareUrl = created.body.data.share_url as string;
  expect(shareUrl.startsWith(`${PUBLIC_URL}/reports/`)).toBe(true);
  const local = `${server.url}${new URL(shareUrl).pathname}`;
  const res = await fetch(local);
  return {
    res,
    html: await res.text(),
    shareUrl,
    local,
    report: created.body.data as { score: number; results: Results },
  };
}

const ids = checkDefinitions.map((d) => d.id);

describe('the share page of a report with failures', () => {
  it('lists the failures first, costliest first, each with its catalogue fix', async () => {
    const { res, html, report } = await share('/poor');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(html).not.toMatch(/<script/i);
    const $ = load(html);

    const sections = $('body > section')
      .toArray()
      .map((el) => $(el).attr('id'));
    expect(sections.indexOf('fix-first')).toBeLessThan(sections.indexOf('section-seo'));

    const failedScored = Object.entries(report.results).filter(([, r]) => !r.passed && r.importance !== 'low');
    const items = $('#fix-first ol.fixes > li').toArray();
    expect(items.length).toBe(failedScored.length);
    const costs = items.map((li) =>
      Number(
        $(li)
          .find('.cost')
          .text()
          .replace('−', '')
          .replace(/ points?/, ''),
      ),
    );
    expect(costs.every((c) => c > 0)).toBe(true);
    expect([...costs].sort((a, b) => b - a)).toEqual(costs);
    for (const li of items) {
      const id = $(li).attr('id')!.replace(/^fix-/, '');
      const entry = catalogueEntry(id)!;
      expect($(li).find('h3').text()).toBe(entry.title);
      expect($(li).find('.fix').text()).toBe(`How to fix: ${entry.fix}`);
    }
    // Failures of weight 0 are named after, linked to their checks.
    const unscored = Object.entries(report.results).filter(([, r]) => !r.passed && r.importance === 'low');
    expect($('#fix-first p a').length).toBe(unscored.length);
  });

  it('shows every check in words with its value formatted: no raw JSON, no raw ids as headings', async () => {
    const { html, report } = await share('/poor');
    const $ = load(html);
    for (const [id, result] of Object.entries(report.results)) {
      const article = $(`article#check-${id}`);
      expect(article.length, id).toBe(1);
      expect(article.find('h3').text()).toBe(catalogueEntry(id)!.title);
      expect(article.find('.row .pass, .row .fail').first().text()).toBe(result.passed ? 'Passed' : 'Failed');
      expect(article.find('.about').text()).toContain(catalogueEntry(id)!.description);
    }
    const text = $('body').text();
    expect(text).not.toMatch(/\{"|":|\[\{|\[object Object\]/);
    for (const heading of $('h1, h2, h3, h4, th')
      .toArray()
      .map((el) => $(el).text().trim())) {
      expect(heading).not.toMatch(/[a-z0-9]_[a-z0-9]/);
      expect(ids).not.toContain(heading);
    }
    const measured = (id: string) => $(`article#check-${id} dl.value dd`).first().text();
    expect(measured('load_time')).toMatch(/^\d[\d,]* (ms|s)$/);
    expect(measured('page_size')).toMatch(/^\d[\d,.]* (bytes|KiB)$/);
    expect(measured('in_page_links')).toMatch(/^(1 link|\d+ links)$/);
    expect(measured('404_page')).toBe('HTTP 404');
    expect(
      $('article#check-image_format dl.value table th')
        .toArray()
        .map((el) => $(el).text()),
    ).toEqual(['Modern format', 'Legacy format']);
  });

  it('has the score gauge, counts per section, and link-preview meta', async () => {
    const { html, report, shareUrl } = await share('/poor');
    const $ = load(html);
    expect($('svg.gauge').attr('aria-label')).toBe(`Score ${report.score} of 100`);
    const rows = $('.overview tbody tr').toArray();
    expect(rows.map((r) => $(r).find('th').text())).toEqual(['SEO', 'Performance', 'Security', 'Miscellaneous']);
    const failedInSeo = Object.values(report.results).filter(
      (r) => 'category' in r && r.category === 'seo' && !r.passed,
    );
    expect(Number($(rows[0]).find('td').eq(1).text())).toBe(failedInSeo.length);
    expect($('meta[property="og:title"]').attr('content')).toContain(`${report.score}/100`);
    expect($('meta[property="og:url"]').attr('content')).toBe(shareUrl);
    expect($('meta[property="og:description"]').attr('content')).toMatch(/checks passed\. Fix first: /);
    expect($('meta[name="twitter:card"]').attr('content')).toBe('summary');
    expect($('meta[name="twitter:title"]').attr('content')).toBe($('meta[property="og:title"]').attr('content'));
  });

  it('prints cleanly: a print stylesheet that hides nothing', async () => {
    const { html } = await share('/good');
    const css = load(html)('style').text();
    const start = css.indexOf('@media print{');
    expect(start).toBeGreaterThan(0);
    const print = css.slice(start);
    expect(print).toMatch(/break-inside:avoid/);
    expect(print).toMatch(/print-color-adjust:exact/);
    expect(print).toMatch(/a\.learn::after\{content:" \(" attr\(href\) "\)"/);
    expect(css).not.toMatch(/display:\s*none|visibility:\s*hidden/);
  });

  it('keeps the password form and its error as they were', async () => {
    const { res, html, local } = await share('/good', { privacy: '2', password: 'letmein' });
    expect(res.status).toBe(200);
    expect(html).toContain('<h1>This report is protected</h1>');
    expect(html).toContain(
      '<label>Password <input type="password" name="password" required autocomplete="current-password" autofocus></label>',
    );
    const wrong = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=nope',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-security-policy')).toBe(CSP);
    expect(await wrong.text()).toContain('<p class="error" role="alert">That password is not right.</p>');
    const right = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=letmein',
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('id="fix-first"');
  });
});

describe('a report stored before a check was catalogued', () => {
  it('names an unknown check in words and shows its value without JSON', () => {
    const html = renderReportPage(
      {
        id: 1,
        url: 'example.test/',
        fullUrl: 'http://example.test/',
        project: 'example.test',
        result: 'bad',
        score: 0,
        generatedAt: new Date('2026-01-02T03:04:05Z'),
        results: {
          legacy_widget_check: {
            passed: false,
            importance: 'high',
            value: { widgetCount: 3, names: ['a', 'b'] },
            category: 'seo',
            details: [{ reason: 'old' }],
          },
        },
      },
      { weights: { high: 10, medium: 5, low: 0 } },
    );
    const $ = load(html);
    expect($('#check-legacy_widget_check h3').text()).toBe('Legacy widget check');
    expect($('#fix-legacy_widget_check .cost').text()).toBe('−100 points');
    expect($('body').text()).not.toMatch(/\{"|":/);
    expect($('#check-legacy_widget_check dl.value').text()).toContain('Widget count3');
  });
});

describe('the accessibility section', () => {
  const weights = { high: 10, medium: 5, low: 0 };
  const page = (results: Record<string, ResultEntry>) =>
    load(
      renderReportPage(
        {
          id: 1,
          url: 'example.test/',
          fullUrl: 'http://example.test/',
          project: 'example.test',
          result: 'good',
          score: 90,
          generatedAt: new Date('2026-01-02T03:04:05Z'),
          results,
        },
        { weights },
      ),
    );
  const node = (n: number) => ({
    selector: `#field-${n}`,
    snippet: `<input id="field-${n}" type="text">`,
    why: 'Fix any of the following:\n  Form element does not have an implicit label',
  });

  it('shows the category’s own score and the failures costliest first with their elements', () => {
    const inapplicable = accessibilityRules
      .map((r) => r.axe)
      .filter((id) => !['label', 'heading-order', 'image-alt', 'duplicate-id-aria', 'color-contrast'].includes(id));
    const checks = accessibilityChecks({
      version: '4.14.1',
      violations: [
        { rule: 'heading-order', impact: 'moderate', count: 1, nodes: [node(9)] },
        { rule: 'label', impact: 'critical', count: 7, nodes: [1, 2, 3, 4, 5].map(node) },
      ],
      incomplete: [{ rule: 'color-contrast', impact: 'serious', count: 1, nodes: [node(8)] }],
      inapplicable,
      elapsedMs: 100,
    });
    const results: Record<string, ResultEntry> = {
      title: { passed: true, importance: 'high', value: 'T', category: 'seo', details: [] },
    };
    for (const c of checks) results[c.id] = toEntry(c);
    const $ = page(results);
    const section = $('#section-accessibility');
    // Applicable weights: label 7, heading-order 3, image-alt 10, duplicate-id-aria 0
    // (informative), color-contrast 7 (needs review, passing): 17 of 27.
    expect(section.find('[data-status="measured"]').text()).toContain(`score ${Math.round((100 * 17) / 27)} of 100`);
    expect(section.find('[data-status="measured"]').text()).toContain('not part of the report');
    const failures = section.find('ol.a11y-failures > li');
    expect(failures.map((_, li) => $(li).attr('id')).get()).toEqual(['a11y-a11y_label', 'a11y-a11y_heading_order']);
    const label = failures.first();
    expect(label.find('h3').text()).toBe(catalogueEntry('a11y_label')!.title);
    expect(label.find('.fix').text()).toContain(catalogueEntry('a11y_label')!.fix);
    expect(label.find('.cost').text()).toBe(`−${Math.round((1000 * 7) / 27) / 10} points`);
    expect(label.find('ul.nodes > li .code').first().text()).toBe('#field-1');
    expect(label.find('ul.nodes pre.snippet').first().text()).toBe('<input id="field-1" type="text">');
    expect(label.find('ul.nodes').text()).toContain('and 2 more');
    // Needs review is listed apart, without a cost or a fix.
    const review = section.find('ul.a11y-review > li');
    expect(review.attr('id')).toBe('a11y-a11y_color_contrast');
    expect(review.find('.cost')).toHaveLength(0);
    expect(review.find('.code').text()).toBe('#field-8');
    // The report's score and its fix-first list are phpRank's: no accessibility check in them.
    expect($('#fix-first').text()).not.toContain(catalogueEntry('a11y_label')!.title);
    expect($('.overview table').text()).not.toMatch(/accessibility/i);
  });

  it('says a report without rendering needs it', () => {
    const $ = page({ title: { passed: true, importance: 'high', value: 'T', category: 'seo', details: [] } });
    expect($('#section-accessibility [data-status="needs_rendering"]').text()).toContain('render=1');
  });

  it('says when a rendered report has no accessibility checks', () => {
    const $ = page({
      title: { passed: true, importance: 'high', value: 'T', category: 'seo', details: [], rendered: true },
    });
    expect($('#section-accessibility [data-status="not_measured"]')).toHaveLength(1);
  });
});
