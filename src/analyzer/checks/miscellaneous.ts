/**
 * Miscellaneous checks: structured data (and valid JSON-LD), viewport, charset, sitemap,
 * social links, Open Graph, content length, text/HTML ratio, inline CSS, deprecated tags
 * and doctype.
 */
import type { Element } from 'domhandler';
import { getDomain } from 'tldts';
import { charsetFromContentType } from '../body.ts';
import type { PageContext } from '../page.ts';
import { leadingDoctype } from '../scan.ts';
import { metaByName } from './seo.ts';
import { defineCheck, type CheckDefinition } from './types.ts';

/** Registrable domains of social networks, to the network's name. */
export const socialNetworks: Readonly<Record<string, string>> = {
  'facebook.com': 'Facebook',
  'fb.com': 'Facebook',
  'twitter.com': 'X (Twitter)',
  'x.com': 'X (Twitter)',
  'instagram.com': 'Instagram',
  'linkedin.com': 'LinkedIn',
  'youtube.com': 'YouTube',
  'youtu.be': 'YouTube',
  'tiktok.com': 'TikTok',
  'pinterest.com': 'Pinterest',
  'reddit.com': 'Reddit',
  'tumblr.com': 'Tumblr',
  'threads.net': 'Threads',
  'bsky.app': 'Bluesky',
  'mastodon.social': 'Mastodon',
  'vk.com': 'VK',
  't.me': 'Telegram',
  'wa.me': 'WhatsApp',
  'whatsapp.com': 'WhatsApp',
  'snapchat.com': 'Snapchat',
  'discord.gg': 'Discord',
  'twitch.tv': 'Twitch',
  'github.com': 'GitHub',
  'medium.com': 'Medium',
  'vimeo.com': 'Vimeo',
  'flickr.com': 'Flickr',
  'dribbble.com': 'Dribbble',
  'behance.net': 'Behance',
};

/** Deprecated or obsolete HTML elements. */
export const deprecatedTags = [
  'acronym',
  'applet',
  'basefont',
  'bgsound',
  'big',
  'blink',
  'center',
  'dir',
  'font',
  'frame',
  'frameset',
  'isindex',
  'keygen',
  'listing',
  'marquee',
  'menuitem',
  'multicol',
  'nextid',
  'nobr',
  'noembed',
  'noframes',
  'plaintext',
  'rb',
  'rtc',
  'spacer',
  'strike',
  'tt',
  'xmp',
];

/** Required Open Graph properties (ogp.me "basic metadata"). */
export const requiredOpenGraph = ['og:title', 'og:type', 'og:image', 'og:url'];

function jsonLdBlocks(page: PageContext): string[] {
  return page
    .$('script[type]')
    .toArray()
    .filter((el) => (el.attribs['type'] ?? '').trim().toLowerCase() === 'application/ld+json')
    .map((el) => page.$(el).text());
}

function jsonLdTypes(value: unknown, out: Set<string>, depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) jsonLdTypes(item, out, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const type = record['@type'];
  if (typeof type === 'string') out.add(type);
  else if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') out.add(t);
  if (record['@graph']) jsonLdTypes(record['@graph'], out, depth + 1);
}

/** The miscellaneous checks. */
export const miscellaneousChecks: CheckDefinition[] = [
  defineCheck('structured_data', (page) => {
    const types = new Set<string>();
    let jsonLd = 0;
    for (const block of jsonLdBlocks(page)) {
      try {
        jsonLdTypes(JSON.parse(block), types);
        jsonLd++;
      } catch {
        // invalid blocks do not count; json_ld_valid reports them
      }
    }
    const microdata = page.$('[itemscope]').toArray();
    for (const el of microdata) if (el.attribs['itemtype']) types.add(el.attribs['itemtype']);
    const rdfa = page.$('[typeof], [vocab]').toArray();
    for (const el of rdfa) if (el.attribs['typeof']) types.add(el.attribs['typeof']);
    const value = { jsonLd, microdata: microdata.length, rdfa: rdfa.length, types: [...types] };
    const passed = jsonLd + microdata.length + rdfa.length > 0;
    return { passed, value, details: passed ? [] : ['No valid JSON-LD, microdata or RDFa found.'] };
  }),

  defineCheck('json_ld_valid', (page) => {
    const blocks = jsonLdBlocks(page);
    const details: string[] = [];
    blocks.forEach((block, i) => {
      try {
        JSON.parse(block);
      } catch (err) {
        details.push(`JSON-LD block ${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return { passed: details.length === 0, value: { blocks: blocks.length, invalid: details.length }, details };
  }),

  defineCheck('meta_viewport', (page) => {
    const content = metaByName(page, 'viewport')[0]?.attribs['content']?.trim();
    return {
      passed: Boolean(content),
      value: content ?? null,
      details: content ? [] : ['No <meta name="viewport">.'],
    };
  }),

  defineCheck('charset', (page) => {
    const meta = page.$('meta[charset]').attr('charset')?.trim();
    const httpEquiv = page
      .$('meta[http-equiv]')
      .toArray()
      .find((el) => (el.attribs['http-equiv'] ?? '').toLowerCase() === 'content-type');
    const charset =
      meta ||
      charsetFromContentType(httpEquiv?.attribs['content']) ||
      charsetFromContentType(page.header('content-type'));
    return {
      passed: Boolean(charset),
      value: charset ?? null,
      details: charset ? [] : ['No character encoding is declared.'],
    };
  }),

  defineCheck('sitemap', (page) => {
    const sitemap = page.aux?.sitemap;
    if (!sitemap) return { passed: false, value: null, details: ['The sitemap was not fetched.'] };
    const detail = sitemap.error ?? `${sitemap.url} answered with status ${sitemap.status} and is not a sitemap.`;
    return {
      passed: sitemap.found,
      value: sitemap.found ? (sitemap.finalUrl ?? sitemap.url) : null,
      details: sitemap.found ? [] : [detail],
    };
  }),

  defineCheck('social', (page) => {
    const networks = new Set<string>();
    for (const el of page.$('a[href]').toArray()) {
      const url = page.resolve(el.attribs['href']);
      if (!url || !url.protocol.startsWith('http')) continue;
      const domain = getDomain(url.hostname) ?? url.hostname;
      const network = socialNetworks[url.hostname.replace(/^www\./, '')] ?? socialNetworks[domain];
      if (network) networks.add(network);
    }
    const passed = networks.size > 0;
    return { passed, value: [...networks], details: passed ? [] : ['No links to social networks.'] };
  }),

  defineCheck('open_graph', (page) => {
    const found = new Set(
      page
        .$('meta[property], meta[name]')
        .toArray()
        .map((el) => (el.attribs['property'] ?? el.attribs['name'] ?? '').trim().toLowerCase())
        .filter((p) => p.startsWith('og:')),
    );
    const missing = requiredOpenGraph.filter((p) => !found.has(p));
    return { passed: missing.length === 0, value: [...found], details: missing.map((p) => `Missing ${p}`) };
  }),

  defineCheck('content_length', (page) => {
    const words = page.words.length;
    const min = page.thresholds.minWords;
    return { passed: words >= min, value: words, details: words >= min ? [] : [`${words} words (min ${min}).`] };
  }),

  defineCheck('text_html_ratio', (page) => {
    const ratio = page.html.length === 0 ? 0 : (page.text.length / page.html.length) * 100;
    const rounded = Math.round(ratio * 10) / 10;
    const min = page.thresholds.minTextHtmlRatio;
    return {
      passed: ratio >= min,
      value: rounded,
      details: ratio >= min ? [] : [`Text is ${rounded}% of the HTML (min ${min}%).`],
    };
  }),

  defineCheck('inline_css', (page) => {
    const styled = page.$('[style]').toArray();
    return {
      passed: styled.length === 0,
      value: styled.length,
      details: styled.map((el) => page.describe(el, 'style')),
    };
  }),

  defineCheck('deprecated_html_tags', (page) => {
    const counts: Record<string, number> = {};
    for (const el of page.$(deprecatedTags.join(',')).toArray() as Element[])
      counts[el.tagName] = (counts[el.tagName] ?? 0) + 1;
    const details = Object.entries(counts).map(([tag, n]) => `<${tag}> x${n}`);
    return { passed: details.length === 0, value: Object.keys(counts), details };
  }),

  defineCheck('doctype', (page) => {
    const doctype = leadingDoctype(page.html);
    return {
      passed: doctype !== null,
      value: doctype,
      details: doctype !== null ? [] : ['The document does not start with a <!DOCTYPE html> declaration.'],
    };
  }),
];
