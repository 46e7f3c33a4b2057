/** English words for the SEO checks. */
import type { SectionTexts } from './texts.ts';

type SeoId =
  | 'title'
  | 'meta_description'
  | 'headings'
  | 'content_keywords'
  | 'image_keywords'
  | 'seo_friendly_url'
  | '404_page'
  | 'robots'
  | 'noindex'
  | 'in_page_links'
  | 'language'
  | 'favicon'
  | 'canonical'
  | 'hreflang';

/** The SEO checks in English. */
export const enSeo: SectionTexts<SeoId> = {
  title: {
    title: 'Page title',
    description:
      'The page has exactly one <title> of a sensible length. Search engines show it as the headline of the result, so it decides whether people click.',
    fix: 'Give the page one <title> that names its subject in a few words, within the allowed length, and is different from the titles of other pages.',
    learnMore: 'https://developers.google.com/search/docs/appearance/title-link',
  },
  meta_description: {
    title: 'Meta description',
    description:
      'The page has a non-empty <meta name="description">. Search engines often use it as the snippet under the result.',
    fix: 'Add <meta name="description" content="…"> to the <head> with one or two sentences that summarise this page.',
    learnMore: 'https://developers.google.com/search/docs/appearance/snippet',
  },
  headings: {
    title: 'Main heading',
    description:
      'The page has exactly one <h1>, and it does not merely repeat the title. The main heading tells readers and search engines what the page is about.',
    fix: 'Use a single <h1> for the page’s main heading (other headings as <h2>–<h6>) and word it differently from the <title>.',
  },
  content_keywords: {
    title: 'Title keywords in the content',
    description:
      'The significant words of the title also appear in the page’s text. A page whose text does not mention what its title promises ranks poorly for those words.',
    fix: 'Use the missing words in the visible text of the page, or change the title to match what the page really says.',
    fields: { keywords: 'Keywords of the title', missing: 'Missing from the text' },
  },
  image_keywords: {
    title: 'Image alt texts',
    description:
      'Every <img> has an alt attribute. Alt text is read aloud by screen readers and tells search engines what an image shows.',
    fix: 'Add alt="…" describing each image; use alt="" for purely decorative images.',
    fields: { images: 'Images', missingAlt: 'Without alt' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/API/HTMLImageElement/alt',
  },
  seo_friendly_url: {
    title: 'Readable URL',
    description:
      'The address is short, lowercase, has no query string and separates words with hyphens. Such URLs are easier to read, share and rank.',
    fix: 'Serve the page at a short lowercase path with hyphens between words (for example /blue-shoes) and redirect the old address to it.',
  },
  '404_page': {
    title: 'Not-found status',
    description:
      'A made-up address on the site answers with HTTP 404 (or 410). Sites that answer 200 for missing pages get error pages indexed as content.',
    fix: 'Configure the server or application to answer unknown paths with status 404, with a helpful page.',
    learnMore: 'https://developers.google.com/search/docs/crawling-indexing/soft-404-errors',
  },
  robots: {
    title: 'Allowed by robots.txt',
    description: 'The site’s robots.txt does not forbid crawlers to fetch this page. A disallowed page is not crawled.',
    fix: 'Remove or narrow the Disallow rule in /robots.txt that matches this page.',
    fields: { status: 'robots.txt status', rules: 'Has rules', allowed: 'Page allowed' },
    learnMore: 'https://developers.google.com/search/docs/crawling-indexing/robots/intro',
  },
  noindex: {
    title: 'Indexable',
    description:
      'Neither a robots meta tag nor an X-Robots-Tag header tells search engines not to index the page. A noindex page never appears in results.',
    fix: 'Remove "noindex" (or "none") from <meta name="robots"> and from the X-Robots-Tag header, unless the page should stay out of search.',
    learnMore: 'https://developers.google.com/search/docs/crawling-indexing/block-indexing',
  },
  in_page_links: {
    title: 'Number of links',
    description:
      'The page does not have an excessive number of links. Very many links dilute their weight and make the page hard to use.',
    fix: 'Remove links that readers do not need, or split the page into several pages.',
    counted: { one: 'link', other: 'links' },
  },
  language: {
    title: 'Page language',
    description:
      'The <html> element declares the page’s language. Screen readers pronounce text by it and search engines serve the page to the right audience.',
    fix: 'Add a lang attribute to <html>, for example <html lang="en">.',
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Global_attributes/lang',
  },
  favicon: {
    title: 'Favicon',
    description:
      'The page links an icon. Browsers show it in tabs and bookmarks, and search engines beside the result.',
    fix: 'Add <link rel="icon" href="/favicon.png"> (and an apple-touch-icon) to the <head>.',
  },
  canonical: {
    title: 'Canonical URL',
    description:
      'The page names one valid canonical address. It tells search engines which URL to index when the same content is reachable under several.',
    fix: 'Add exactly one <link rel="canonical" href="https://…"> with the preferred absolute URL of this page.',
    learnMore: 'https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls',
  },
  hreflang: {
    title: 'Language alternates',
    description:
      'Every <link hreflang> has a valid language code and URL. Invalid alternates are ignored, so visitors may get the wrong language version.',
    fix: 'Use codes like "en", "en-GB" or "x-default" in hreflang, each with a valid href.',
    learnMore: 'https://developers.google.com/search/docs/specialty/international/localized-versions',
  },
};
