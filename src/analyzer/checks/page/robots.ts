/** The `robots` check (seo): Allowed by robots.txt. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'robots',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1080,
  rendered: false,
  texts: {
    en: {
      title: 'Allowed by robots.txt',
      description:
        'The site’s robots.txt does not forbid crawlers to fetch this page. A disallowed page is not crawled.',
      fix: 'Remove or narrow the Disallow rule in /robots.txt that matches this page.',
      fields: { status: 'robots.txt status', rules: 'Has rules', allowed: 'Page allowed' },
      learnMore: 'https://developers.google.com/search/docs/crawling-indexing/robots/intro',
    },
  },
  value: formats.table({ status: formats.n('http_status'), rules: { type: 'boolean' }, allowed: { type: 'boolean' } }),
  run(page) {
    const robots = page.aux?.robots;
    if (!robots) return { passed: false, value: null, details: ['robots.txt was not fetched.'] };
    if (robots.text === undefined) {
      return { passed: true, value: { status: robots.status ?? null, rules: false }, details: [] };
    }
    const parsed = page.parseRobots(robots.url, robots.text);
    const allowed = parsed.isAllowed(page.url.href, page.robotsAgent) !== false;
    const details: string[] = [];
    if (!allowed) {
      const line = parsed.getMatchingLineNumber(page.url.href, page.robotsAgent);
      const text = line > 0 ? robots.text.split(/\r?\n/)[line - 1]?.trim() : undefined;
      details.push(`robots.txt disallows this page${text ? ` (line ${line}: ${text})` : ''}.`);
    }
    return { passed: allowed, value: { status: robots.status ?? null, rules: true, allowed }, details };
  },
} satisfies PageCheck;
