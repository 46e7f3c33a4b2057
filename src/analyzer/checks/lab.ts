/**
 * The lab checks of a rendered page: their identity, words and value format, in report order.
 * render/lab.ts measures them (Lighthouse's metrics and opportunities, in Chromium); they are
 * reported after every page check.
 */
import * as formats from './catalogue/formats.ts';
import type { DescribedCheck } from './types.ts';

/** Every lab check, in report order. */
export const labDefinitions = [
  {
    id: 'first_contentful_paint',
    category: 'performance',
    importance: 'medium',
    source: 'rendered',
    texts: {
      en: {
        title: 'First Contentful Paint',
        description:
          'When the browser painted the first text or image (lab measurement). It is when a visitor first sees the page respond.',
        fix: 'Shorten the server response, remove render-blocking scripts and stylesheets and inline the critical CSS.',
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/first-contentful-paint',
      },
    },
    value: formats.metric,
  },
  {
    id: 'largest_contentful_paint',
    category: 'performance',
    importance: 'high',
    source: 'rendered',
    texts: {
      en: {
        title: 'Largest Contentful Paint',
        description:
          'When the largest image or text block in the first screen was painted (lab measurement). It marks when the main content is visible.',
        fix: 'Make the largest element load early: preload its image, serve it smaller and in a modern format, and avoid client-side rendering of it.',
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/lighthouse-largest-contentful-paint',
      },
    },
    value: formats.metric,
  },
  {
    id: 'total_blocking_time',
    category: 'performance',
    importance: 'medium',
    source: 'rendered',
    texts: {
      en: {
        title: 'Total Blocking Time',
        description:
          'How long long-running scripts kept the main thread busy after the first paint (lab measurement). While it is blocked the page cannot respond to input.',
        fix: 'Split long JavaScript tasks, remove unused scripts and defer third-party code.',
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/lighthouse-total-blocking-time',
      },
    },
    value: formats.metric,
  },
  {
    id: 'cumulative_layout_shift',
    category: 'performance',
    importance: 'high',
    source: 'rendered',
    texts: {
      en: {
        title: 'Cumulative Layout Shift',
        description:
          'How much visible content moved while the page loaded (lab measurement, unitless). Shifting content makes people misclick and lose their place.',
        fix: 'Give images, embeds and ads reserved space (width and height) and do not insert content above what is already shown.',
        learnMore: 'https://web.dev/articles/cls',
      },
    },
    value: formats.num('unitless', 3),
  },
  {
    id: 'lab_performance_score',
    category: 'performance',
    importance: 'medium',
    source: 'rendered',
    texts: {
      en: {
        title: 'Lab performance score',
        description: 'Lighthouse’s weighted score of the lab timings above, 0 to 100; 90 and above is good.',
        fix: 'Improve the lab timings that are not good, starting with those of the highest weight (Total Blocking Time, Largest Contentful Paint, Cumulative Layout Shift).',
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/performance-scoring',
      },
    },
    value: formats.num('score'),
  },
  {
    id: 'total_byte_weight',
    category: 'performance',
    importance: 'low',
    source: 'rendered',
    texts: {
      en: {
        title: 'Total download size',
        description:
          'All bytes the rendered page downloaded: document, scripts, styles, images, fonts. Heavy pages are slow and cost visitors data.',
        fix: 'Compress and resize images, remove unused scripts and fonts, and lazy-load what is below the fold.',
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/total-byte-weight',
      },
    },
    value: formats.num('bytes'),
  },
  {
    id: 'render_blocking_resources',
    category: 'performance',
    importance: 'medium',
    source: 'rendered',
    texts: {
      en: {
        title: 'Render-blocking resources',
        description: 'Scripts and stylesheets that Chromium had to load before it could paint anything.',
        fix: 'Defer scripts, inline critical CSS and load the rest of the styles without blocking (media queries or preload).',
        counted: { one: 'resource', other: 'resources' },
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/render-blocking-resources',
      },
    },
    value: formats.count,
  },
  {
    id: 'oversized_images',
    category: 'performance',
    importance: 'low',
    source: 'rendered',
    texts: {
      en: {
        title: 'Properly sized images',
        description: 'Images that are much larger than the size they are shown at, wasting bytes.',
        fix: 'Serve each image at the size it is displayed, with srcset and sizes for different screens.',
        counted: { one: 'image', other: 'images' },
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images',
      },
    },
    value: formats.count,
  },
  {
    id: 'offscreen_images',
    category: 'performance',
    importance: 'low',
    source: 'rendered',
    texts: {
      en: {
        title: 'Offscreen images',
        description:
          'Images well below the first screen (more than three screens down) that load before the page is interactive instead of when the visitor scrolls to them, as Lighthouse counts them.',
        fix: 'Add loading="lazy" to images that are not in the first screen.',
        counted: { one: 'image', other: 'images' },
        learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/offscreen-images',
      },
    },
    value: formats.count,
  },
  {
    id: 'console_errors',
    category: 'miscellaneous',
    importance: 'low',
    source: 'rendered',
    texts: {
      en: {
        title: 'Console errors',
        description:
          'Errors the rendered page logged to the browser console (failed scripts, exceptions, failed requests).',
        fix: 'Open the browser’s developer tools on the page and correct the errors listed.',
        counted: { one: 'error', other: 'errors' },
      },
    },
    value: formats.count,
  },
] as const satisfies readonly DescribedCheck[];

/** The id of a lab check. */
export type LabCheckId = (typeof labDefinitions)[number]['id'];
