/** The `title` check (seo): Page title. */
import * as formats from '../catalogue/formats.ts';
import { normalizeText } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'title',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1010,
  rendered: true,
  texts: {
    en: {
      title: 'Page title',
      description:
        'The page has exactly one <title> of a sensible length. Search engines show it as the headline of the result, so it decides whether people click.',
      fix: 'Give the page one <title> that names its subject in a few words, within the allowed length, and is different from the titles of other pages.',
      learnMore: 'https://developers.google.com/search/docs/appearance/title-link',
    },
  },
  value: formats.text,
  run(page) {
    const titles = page.titleElements.map((el) => normalizeText(page.$(el).text()));
    const { titleMinLength: min, titleMaxLength: max } = page.thresholds;
    const title = titles[0];
    const details: string[] = [];
    if (titles.length === 0) details.push('The page has no <title>.');
    if (titles.length > 1) details.push(...titles.map((t) => `<title>${t}</title>`));
    if (title !== undefined && (title.length < min || title.length > max)) {
      details.push(`The title is ${title.length} characters long (allowed ${min}-${max}).`);
    }
    return { passed: details.length === 0, value: title ?? null, details };
  },
} satisfies PageCheck;
