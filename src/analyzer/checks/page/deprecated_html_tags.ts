/** The `deprecated_html_tags` check (miscellaneous): Obsolete HTML elements. */
import { type Element } from 'domhandler';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

/** Deprecated or obsolete HTML elements. */
const deprecatedTags = [
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

export default {
  id: 'deprecated_html_tags',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4110,
  rendered: true,
  texts: {
    en: {
      title: 'Obsolete HTML elements',
      description:
        'Elements such as <font>, <center> or <marquee> that HTML no longer defines. Browsers may render them inconsistently.',
      fix: 'Replace the listed elements with current HTML and CSS.',
    },
  },
  value: formats.list,
  run(page) {
    const counts: Record<string, number> = {};
    for (const el of page.$(deprecatedTags.join(',')).toArray() as Element[])
      counts[el.tagName] = (counts[el.tagName] ?? 0) + 1;
    const details = Object.entries(counts).map(([tag, n]) => `<${tag}> x${n}`);
    return { passed: details.length === 0, value: Object.keys(counts), details };
  },
} satisfies PageCheck;
