/** English words for the performance checks, the lab checks of a rendered page included. */
import type { SectionTexts } from './texts.ts';

type PerformanceId =
  | 'text_compression'
  | 'load_time'
  | 'page_size'
  | 'http_requests'
  | 'image_format'
  | 'defer_javascript'
  | 'dom_size'
  | 'cache_headers'
  | 'brotli'
  | 'http2'
  | 'image_dimensions'
  | 'first_contentful_paint'
  | 'largest_contentful_paint'
  | 'total_blocking_time'
  | 'cumulative_layout_shift'
  | 'lab_performance_score'
  | 'total_byte_weight'
  | 'render_blocking_resources'
  | 'oversized_images'
  | 'offscreen_images';

/** The performance checks in English. */
export const enPerformance: SectionTexts<PerformanceId> = {
  text_compression: {
    title: 'Text compression',
    description:
      'The HTML is sent compressed (gzip, Brotli, deflate or zstd). Compression typically shrinks HTML by 70% or more, so the page arrives sooner.',
    fix: 'Enable gzip or Brotli compression for text responses in the web server or CDN.',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression',
  },
  load_time: {
    title: 'Server response time',
    description:
      'How long the HTML took to arrive in full, from the request to the last byte. A slow document delays everything else on the page.',
    fix: 'Cache rendered pages, speed up slow database queries or server code, or serve the page from a CDN close to visitors.',
  },
  page_size: {
    title: 'HTML size',
    description:
      'The size of the HTML document itself (uncompressed). Large documents take longer to download and parse.',
    fix: 'Remove inline data, large inline scripts or styles and unused markup; paginate long lists.',
  },
  http_requests: {
    title: 'Requests',
    description:
      'How many resources (scripts, stylesheets, images, frames…) the page makes the browser fetch. Every request costs time, more so on mobile networks.',
    fix: 'Combine or remove scripts and stylesheets, lazy-load images below the fold and drop third-party embeds you do not need.',
    fields: {
      total: 'Requests',
      bytes: 'Bytes transferred',
      byType: 'By type',
      refused: 'Refused by the address guard',
    },
  },
  image_format: {
    title: 'Modern image formats',
    description:
      'Images are served as WebP, AVIF or SVG. These formats are much smaller than JPEG, PNG or GIF at the same quality.',
    fix: 'Convert images to WebP or AVIF, or offer them through <picture> with a <source type="image/webp">.',
    fields: { modern: 'Modern format', legacy: 'Legacy format' },
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images',
  },
  defer_javascript: {
    title: 'Deferred scripts',
    description:
      'Scripts in the <head> are loaded with async or defer (or as modules). A plain script stops the browser from rendering until it has been fetched and run.',
    fix: 'Add defer (or async) to <script src> tags in the <head>, or move them to the end of <body>.',
    counted: { one: 'blocking script', other: 'blocking scripts' },
  },
  dom_size: {
    title: 'DOM size',
    description:
      'How many elements the page has; large documents use more memory and make styling and scripts slower. The limit is phpRank’s (1,500 elements); Lighthouse’s DOM size audit passes only up to 818.',
    fix: 'Remove hidden or unused markup, paginate long lists and avoid deeply nested wrappers.',
    counted: { one: 'element', other: 'elements' },
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/dom-size',
  },
  cache_headers: {
    title: 'Caching headers',
    description:
      'The response carries Cache-Control, ETag or Last-Modified. Without them browsers and proxies cannot reuse or revalidate the page.',
    fix: 'Send Cache-Control (and an ETag or Last-Modified) on the page’s responses.',
    fields: { cacheControl: 'Cache-Control', etag: 'ETag', lastModified: 'Last-Modified' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Caching',
  },
  brotli: {
    title: 'Brotli compression',
    description: 'The HTML is compressed with Brotli, which compresses text about 15-20% better than gzip.',
    fix: 'Enable Brotli (Content-Encoding: br) in the web server or CDN.',
  },
  http2: {
    title: 'HTTP/2 or newer',
    description:
      'The page is served over HTTP/2 or HTTP/3, which load many resources over one connection in parallel, where HTTP/1.1 queues them.',
    fix: 'Enable HTTP/2 (and HTTP/3 if you can) in the web server, load balancer or CDN.',
  },
  image_dimensions: {
    title: 'Image dimensions',
    description:
      'Every <img> has width and height attributes. Without them the browser cannot reserve space, and the layout jumps when images load.',
    fix: 'Add width and height attributes with each image’s intrinsic size (CSS can still scale it).',
    fields: { images: 'Images', missingDimensions: 'Without width and height' },
    learnMore: 'https://web.dev/articles/optimize-cls#images-without-dimensions',
  },
  first_contentful_paint: {
    title: 'First Contentful Paint',
    description:
      'When the browser painted the first text or image (lab measurement). It is when a visitor first sees the page respond.',
    fix: 'Shorten the server response, remove render-blocking scripts and stylesheets and inline the critical CSS.',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/first-contentful-paint',
  },
  largest_contentful_paint: {
    title: 'Largest Contentful Paint',
    description:
      'When the largest image or text block in the first screen was painted (lab measurement). It marks when the main content is visible.',
    fix: 'Make the largest element load early: preload its image, serve it smaller and in a modern format, and avoid client-side rendering of it.',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/lighthouse-largest-contentful-paint',
  },
  total_blocking_time: {
    title: 'Total Blocking Time',
    description:
      'How long long-running scripts kept the main thread busy after the first paint (lab measurement). While it is blocked the page cannot respond to input.',
    fix: 'Split long JavaScript tasks, remove unused scripts and defer third-party code.',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/lighthouse-total-blocking-time',
  },
  cumulative_layout_shift: {
    title: 'Cumulative Layout Shift',
    description:
      'How much visible content moved while the page loaded (lab measurement, unitless). Shifting content makes people misclick and lose their place.',
    fix: 'Give images, embeds and ads reserved space (width and height) and do not insert content above what is already shown.',
    learnMore: 'https://web.dev/articles/cls',
  },
  lab_performance_score: {
    title: 'Lab performance score',
    description: 'Lighthouse’s weighted score of the lab timings above, 0 to 100; 90 and above is good.',
    fix: 'Improve the lab timings that are not good, starting with those of the highest weight (Total Blocking Time, Largest Contentful Paint, Cumulative Layout Shift).',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/performance-scoring',
  },
  total_byte_weight: {
    title: 'Total download size',
    description:
      'All bytes the rendered page downloaded: document, scripts, styles, images, fonts. Heavy pages are slow and cost visitors data.',
    fix: 'Compress and resize images, remove unused scripts and fonts, and lazy-load what is below the fold.',
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/total-byte-weight',
  },
  render_blocking_resources: {
    title: 'Render-blocking resources',
    description: 'Scripts and stylesheets that Chromium had to load before it could paint anything.',
    fix: 'Defer scripts, inline critical CSS and load the rest of the styles without blocking (media queries or preload).',
    counted: { one: 'resource', other: 'resources' },
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/render-blocking-resources',
  },
  oversized_images: {
    title: 'Properly sized images',
    description: 'Images that are much larger than the size they are shown at, wasting bytes.',
    fix: 'Serve each image at the size it is displayed, with srcset and sizes for different screens.',
    counted: { one: 'image', other: 'images' },
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images',
  },
  offscreen_images: {
    title: 'Offscreen images',
    description:
      'Images well below the first screen (more than three screens down) that load before the page is interactive instead of when the visitor scrolls to them, as Lighthouse counts them.',
    fix: 'Add loading="lazy" to images that are not in the first screen.',
    counted: { one: 'image', other: 'images' },
    learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/offscreen-images',
  },
};
