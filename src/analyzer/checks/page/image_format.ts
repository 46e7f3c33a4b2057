/** The `image_format` check (performance): Modern image formats. */
import { isTag, type Element } from 'domhandler';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

const modernFormats = new Set(['webp', 'avif', 'svg']);

const legacyFormats = new Set(['jpg', 'jpeg', 'png', 'gif', 'bmp', 'tif', 'tiff', 'jfif', 'pjpeg']);

/** Image format from a URL: a data: MIME subtype or the path's extension; undefined if unknown. */
function imageFormat(src: string, base: URL): string | undefined {
  const data = /^data:image\/([a-z0-9.+-]+)/i.exec(src.trim());
  if (data) return data[1].toLowerCase().replace('svg+xml', 'svg');
  let path: string;
  try {
    path = new URL(src, base).pathname;
  } catch {
    return undefined;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (!ext) return undefined;
  return modernFormats.has(ext) || legacyFormats.has(ext) ? ext : undefined;
}

export default {
  id: 'image_format',
  category: 'performance',
  importance: 'medium',
  source: 'page',
  order: 2050,
  rendered: true,
  texts: {
    en: {
      title: 'Modern image formats',
      description:
        'Images are served as WebP, AVIF or SVG. These formats are much smaller than JPEG, PNG or GIF at the same quality.',
      fix: 'Convert images to WebP or AVIF, or offer them through <picture> with a <source type="image/webp">.',
      fields: { modern: 'Modern format', legacy: 'Legacy format' },
      learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images',
    },
  },
  value: formats.table({ modern: formats.n('count'), legacy: formats.n('count') }),
  run(page) {
    const { $ } = page;
    const legacy: string[] = [];
    let modern = 0;
    // Whether a <picture> offers a modern <source>, computed once per picture (many <img> may share one).
    const pictures = new Map<Element, boolean>();
    const offersModern = (picture: Element): boolean => {
      let known = pictures.get(picture);
      if (known === undefined) {
        known = picture.children.some(
          (s) =>
            isTag(s) &&
            s.name === 'source' &&
            (/image\/(webp|avif)/i.test(s.attribs['type'] ?? '') ||
              modernFormats.has(imageFormat(s.attribs['srcset'] ?? '', page.url) ?? '')),
        );
        pictures.set(picture, known);
      }
      return known;
    };
    for (const el of $('img[src]').toArray()) {
      const parent = el.parent;
      const modernSource = !!parent && isTag(parent) && parent.name === 'picture' && offersModern(parent);
      const format = imageFormat(el.attribs['src'], page.url);
      if (modernSource || (format && modernFormats.has(format))) modern++;
      else if (format) legacy.push(page.describe(el, 'src'));
    }
    return { passed: legacy.length === 0, value: { modern, legacy: legacy.length }, details: legacy };
  },
} satisfies PageCheck;
