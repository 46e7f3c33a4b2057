/** English words for the miscellaneous checks. */
import type { SectionTexts } from './texts.ts';

type MiscellaneousId =
  | 'structured_data'
  | 'json_ld_valid'
  | 'meta_viewport'
  | 'charset'
  | 'sitemap'
  | 'social'
  | 'open_graph'
  | 'content_length'
  | 'text_html_ratio'
  | 'inline_css'
  | 'deprecated_html_tags'
  | 'doctype'
  | 'console_errors';

/** The miscellaneous checks in English. */
export const enMiscellaneous: SectionTexts<MiscellaneousId> = {
  structured_data: {
    title: 'Structured data',
    description:
      'The page describes itself with JSON-LD, microdata or RDFa. Search engines use it for rich results (ratings, prices, events…).',
    fix: 'Add a <script type="application/ld+json"> block with the schema.org type that fits the page (Article, Product, Organization…).',
    fields: { jsonLd: 'JSON-LD blocks', microdata: 'Microdata items', rdfa: 'RDFa items', types: 'Types' },
    learnMore: 'https://developers.google.com/search/docs/appearance/structured-data/intro-structured-data',
  },
  json_ld_valid: {
    title: 'Valid JSON-LD',
    description: 'Every JSON-LD block parses as JSON. A block with a syntax error is ignored entirely.',
    fix: 'Correct the JSON syntax of the blocks listed (a missing comma or quote is typical); a JSON validator shows where.',
    fields: { blocks: 'JSON-LD blocks', invalid: 'Invalid' },
  },
  meta_viewport: {
    title: 'Mobile viewport',
    description:
      'The page has <meta name="viewport">. Without it phones render the page at desktop width, zoomed out and hard to read.',
    fix: 'Add <meta name="viewport" content="width=device-width, initial-scale=1"> to the <head>.',
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Viewport_meta_tag',
  },
  charset: {
    title: 'Character encoding',
    description: 'The page declares its character encoding, so browsers do not guess it and show garbled text.',
    fix: 'Add <meta charset="utf-8"> as the first element of the <head> (or charset=utf-8 in Content-Type).',
  },
  sitemap: {
    title: 'Sitemap',
    description:
      'The site has an XML sitemap (named in robots.txt or at /sitemap.xml), which helps search engines find all pages.',
    fix: 'Publish a sitemap.xml listing the site’s pages and name it in robots.txt with a Sitemap: line.',
    learnMore: 'https://developers.google.com/search/docs/crawling-indexing/sitemaps/overview',
  },
  social: {
    title: 'Social profiles',
    description: 'The page links to the site’s profiles on social networks, which people use to follow and verify it.',
    fix: 'Link your social network profiles, for example in the footer.',
  },
  open_graph: {
    title: 'Open Graph tags',
    description:
      'The page has og:title, og:type, og:image and og:url. Social networks and chat apps use them for the link preview.',
    fix: 'Add <meta property="og:…" content="…"> tags for title, type, image and url to the <head>.',
    learnMore: 'https://ogp.me/',
  },
  content_length: {
    title: 'Amount of text',
    description:
      'The page has enough text to be useful and to be understood by search engines; thin pages rank poorly.',
    fix: 'Add substantive text about the page’s subject.',
    counted: { one: 'word', other: 'words' },
  },
  text_html_ratio: {
    title: 'Text to HTML ratio',
    description:
      'The share of the HTML that is visible text. A low ratio means heavy markup, inline code or little content.',
    fix: 'Move inline scripts and styles to files, remove unneeded wrappers, or add text.',
  },
  inline_css: {
    title: 'Inline styles',
    description:
      'Elements with a style attribute. Inline styles cannot be cached or reused, and they make a strict CSP harder.',
    fix: 'Move the styles into a stylesheet and use classes.',
    counted: { one: 'element', other: 'elements' },
  },
  deprecated_html_tags: {
    title: 'Obsolete HTML elements',
    description:
      'Elements such as <font>, <center> or <marquee> that HTML no longer defines. Browsers may render them inconsistently.',
    fix: 'Replace the listed elements with current HTML and CSS.',
  },
  doctype: {
    title: 'Doctype',
    description:
      'The document starts with <!DOCTYPE html>. Without it browsers render in quirks mode, with old layout rules.',
    fix: 'Put <!DOCTYPE html> on the first line of the HTML.',
  },
  console_errors: {
    title: 'Console errors',
    description:
      'Errors the rendered page logged to the browser console (failed scripts, exceptions, failed requests).',
    fix: 'Open the browser’s developer tools on the page and correct the errors listed.',
    counted: { one: 'error', other: 'errors' },
  },
};
