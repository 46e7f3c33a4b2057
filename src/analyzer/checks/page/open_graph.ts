/** The `open_graph` check (miscellaneous): Open Graph tags. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

/** Required Open Graph properties (ogp.me "basic metadata"). */
const requiredOpenGraph = ['og:title', 'og:type', 'og:image', 'og:url'];

export default {
  id: 'open_graph',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4070,
  rendered: true,
  texts: {
    en: {
      title: 'Open Graph tags',
      description:
        'The page has og:title, og:type, og:image and og:url. Social networks and chat apps use them for the link preview.',
      fix: 'Add <meta property="og:…" content="…"> tags for title, type, image and url to the <head>.',
      learnMore: 'https://ogp.me/',
    },
  },
  value: formats.list,
  run(page) {
    const found = new Set(
      page
        .$('meta[property], meta[name]')
        .toArray()
        .map((el) => (el.attribs['property'] ?? el.attribs['name'] ?? '').trim().toLowerCase())
        .filter((p) => p.startsWith('og:')),
    );
    const missing = requiredOpenGraph.filter((p) => !found.has(p));
    return { passed: missing.length === 0, value: [...found], details: missing.map((p) => `Missing ${p}`) };
  },
} satisfies PageCheck;
