/** The `dom_size` check (performance): DOM size. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

/** Lighthouse 12's dom-size passes (score >= 0.9) up to this many elements (its p10). */
const lighthouseDomElements = 818;

export default {
  id: 'dom_size',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2070,
  rendered: true,
  texts: {
    en: {
      title: 'DOM size',
      description:
        'How many elements the page has; large documents use more memory and make styling and scripts slower. The limit is phpRank’s (1,500 elements); Lighthouse’s DOM size audit passes only up to 818.',
      fix: 'Remove hidden or unused markup, paginate long lists and avoid deeply nested wrappers.',
      counted: { one: 'element', other: 'elements' },
      learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/dom-size',
    },
  },
  value: formats.count,
  // We keep phpRank's rule (maxDomNodes, 1,500 by default); Lighthouse 12's dom-size passes
  // only up to 818 elements. A count between the two says so, passing or not.
  run(page) {
    const count = page.elementCount;
    const max = page.thresholds.maxDomNodes;
    const details = count <= max ? [] : [`${count} DOM elements (max ${max}).`];
    if (count > lighthouseDomElements) {
      details.push(
        `The limit is phpRank's (${max} elements); Lighthouse's dom-size audit passes only up to ${lighthouseDomElements}.`,
      );
    }
    return { passed: count <= max, value: count, details };
  },
} satisfies PageCheck;
