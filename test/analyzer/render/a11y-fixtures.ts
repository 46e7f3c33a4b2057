/**
 * Fixture pages for the accessibility category and bench/lighthouse-a11y: for each kind of
 * fault a page with it and the same page done right. `fails` names the checks a correct audit
 * fails on the faulty page; the clean page fails none of them.
 */
import type { FixtureHandler } from '../fixtures/server.ts';

/** One pair of pages: the faulty one at `/a11y/<kind>/bad`, the fixed one at `/a11y/<kind>/good`. */
export interface A11yFixture {
  kind: string;
  what: string;
  /** Our check ids the bad page fails. */
  fails: string[];
  /** Our check ids axe cannot decide alone on the bad page (needs review, not failed). */
  reviews?: string[];
  bad: string;
  good: string;
}

const style = `body { font: 16px/1.5 sans-serif; color: #222; background: #fff; margin: 2rem; }
a { color: #0645ad; text-decoration: underline; }
button, input, select { font: inherit; min-height: 32px; min-width: 32px; }`;

/** A well-built page around `body`; `lang` and `head` replace what a fault needs to. */
function page(body: string, opts: { lang?: string | null; head?: string; title?: string } = {}): string {
  const lang = opts.lang === null ? '' : ` lang="${opts.lang ?? 'en'}"`;
  return `<!doctype html>
<html${lang}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title ?? 'Accessibility fixture'}</title><style>${style}</style>${opts.head ?? ''}</head>
<body><header><a href="#main">Skip to content</a></header>
<main id="main"><h1>Garden tools</h1>
${body}
</main></body></html>`;
}

/** 1x1 transparent GIF, served for the fixtures' images. */
const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export const a11yFixtures: A11yFixture[] = [
  {
    kind: 'text-alternatives',
    what: 'images and an image link without alt text',
    fails: ['a11y_image_alt', 'a11y_link_name'],
    bad: page(`<p>Our spade, in two sizes.</p><img src="/a11y/img.gif" width="120" height="80">
<p><a href="/shop"><img src="/a11y/img.gif" width="40" height="40"></a></p>`),
    good: page(`<p>Our spade, in two sizes.</p><img src="/a11y/img.gif" width="120" height="80" alt="A steel spade with an ash handle">
<p><a href="/shop"><img src="/a11y/img.gif" width="40" height="40" alt="Shop"></a></p>`),
  },
  {
    kind: 'contrast',
    what: 'light grey text on white',
    fails: ['a11y_color_contrast'],
    bad: page(`<p style="color:#bbb">Delivery takes two to three working days.</p>`),
    good: page(`<p style="color:#555">Delivery takes two to three working days.</p>`),
  },
  {
    kind: 'labels',
    what: 'a text field and a select without labels',
    fails: ['a11y_label', 'a11y_select_name'],
    bad: page(`<form action="/search"><input type="text" name="q">
<select name="size"><option>Small</option><option>Large</option></select>
<button type="submit">Search</button></form>`),
    good: page(`<form action="/search"><label for="q">Search tools</label> <input id="q" type="text" name="q">
<label for="size">Size</label> <select id="size" name="size"><option>Small</option><option>Large</option></select>
<button type="submit">Search</button></form>`),
  },
  {
    kind: 'names-roles',
    what: 'an icon button without a name, a made-up role',
    fails: ['a11y_button_name', 'a11y_aria_roles'],
    bad: page(`<p>Add the rake to your basket.</p><button type="button"><svg width="24" height="24" aria-hidden="true"><circle cx="12" cy="12" r="10"/></svg></button>
<div role="tooltipp">Ships tomorrow</div>`),
    good: page(`<p>Add the rake to your basket.</p><button type="button" aria-label="Add to basket"><svg width="24" height="24" aria-hidden="true"><circle cx="12" cy="12" r="10"/></svg></button>
<div role="note">Ships tomorrow</div>`),
  },
  {
    kind: 'aria-attributes',
    what: 'a misspelled ARIA attribute, a bad value, a slider without its value',
    fails: ['a11y_aria_valid_attr', 'a11y_aria_valid_attr_value', 'a11y_aria_required_attr'],
    bad: page(`<p id="hint">Pick a handle length.</p>
<div tabindex="0" aria-labeledby="hint">Handle</div>
<button type="button" aria-expanded="maybe">Options</button>
<div role="slider" tabindex="0" aria-label="Length"></div>`),
    good: page(`<p id="hint">Pick a handle length.</p>
<div tabindex="0" role="group" aria-labelledby="hint">Handle</div>
<button type="button" aria-expanded="false">Options</button>
<div role="slider" tabindex="0" aria-label="Length" aria-valuenow="120" aria-valuemin="90" aria-valuemax="150"></div>`),
  },
  {
    kind: 'language',
    what: 'no lang on <html>',
    fails: ['a11y_html_has_lang'],
    bad: page(`<p>Forks for every soil.</p>`, { lang: null }),
    good: page(`<p>Forks for every soil.</p>`),
  },
  {
    kind: 'language-invalid',
    what: 'an invalid lang on <html> and on a quote',
    fails: ['a11y_html_lang_valid', 'a11y_valid_lang'],
    bad: page(`<p>Forks for every soil.</p><blockquote lang="xx-foo-bar-baz">Gut Ding will Weile haben.</blockquote>`, {
      lang: 'english',
    }),
    good: page(`<p>Forks for every soil.</p><blockquote lang="de">Gut Ding will Weile haben.</blockquote>`),
  },
  {
    kind: 'headings',
    what: 'headings skipping from h1 to h4',
    fails: ['a11y_heading_order'],
    bad: page(`<h4>Spades</h4><p>Digging and edging.</p><h4>Forks</h4><p>Turning soil.</p>`),
    good: page(`<h2>Spades</h2><p>Digging and edging.</p><h2>Forks</h2><p>Turning soil.</p>`),
  },
  {
    kind: 'lists',
    what: 'a list with a <div> among its items, an item outside a list',
    fails: ['a11y_list', 'a11y_listitem'],
    bad: page(`<ul><li>Spade</li><div>Rake</div><li>Hoe</li></ul><div><li>Shears</li></div>`),
    good: page(`<ul><li>Spade</li><li>Rake</li><li>Hoe</li></ul><ul><li>Shears</li></ul>`),
  },
  {
    kind: 'definition-lists',
    what: 'a <dl> with a paragraph inside, a <dt> outside any <dl>',
    fails: ['a11y_definition_list', 'a11y_dlitem'],
    bad: page(`<dl><dt>Tine</dt><dd>A prong of a fork.</dd><p>More soon.</p></dl><div><dt>Tang</dt></div>`),
    good: page(
      `<dl><dt>Tine</dt><dd>A prong of a fork.</dd></dl><dl><dt>Tang</dt><dd>The part inside the handle.</dd></dl>`,
    ),
  },
  {
    kind: 'tables',
    what: 'a headers attribute naming a cell outside the table, a header over no cells',
    fails: ['a11y_td_headers_attr'],
    // A header over no cells in an irregular table: axe cannot tell a layout table from a broken one.
    reviews: ['a11y_th_has_data_cells'],
    bad: page(`<table><tr><th id="t">Tool</th><th id="p">Price</th><th>Stock</th></tr>
<tr><td headers="t">Spade</td><td headers="elsewhere">24</td></tr>
<tr><td headers="t">Rake</td><td headers="p">18</td></tr></table>`),
    good: page(`<table><tr><th id="t">Tool</th><th id="p">Price</th></tr>
<tr><td headers="t">Spade</td><td headers="p">24</td></tr>
<tr><td headers="t">Rake</td><td headers="p">18</td></tr></table>`),
  },
  {
    kind: 'duplicate-ids',
    what: 'two elements with the id an aria-describedby points at',
    // axe reports a duplicated id referenced by ARIA for review (it cannot know which element
    // was meant), and Lighthouse passes it; a duplicated id a label's `for` names is a failure.
    fails: [],
    reviews: ['a11y_duplicate_id_aria'],
    bad: page(`<p id="qty-help">Up to ten per order.</p><p id="qty-help">Free returns.</p>
<label for="qty">Quantity</label> <input id="qty" type="number" aria-describedby="qty-help">`),
    good: page(`<p id="qty-help">Up to ten per order.</p><p id="returns">Free returns.</p>
<label for="qty">Quantity</label> <input id="qty" type="number" aria-describedby="qty-help">`),
  },
  {
    kind: 'tab-order',
    what: 'positive tabindex values, a focusable link inside aria-hidden',
    fails: ['a11y_tabindex', 'a11y_aria_hidden_focus'],
    bad: page(`<p><a href="/a" tabindex="3">Spades</a> <a href="/b" tabindex="1">Forks</a></p>
<div aria-hidden="true"><a href="/c">Hidden offer</a></div>`),
    good: page(`<p><a href="/a">Spades</a> <a href="/b">Forks</a></p>
<div aria-hidden="true"><a href="/c" tabindex="-1">Hidden offer</a></div>`),
  },
  {
    kind: 'zoom-refresh',
    what: 'zoom disabled, a timed refresh',
    fails: ['a11y_meta_viewport', 'a11y_meta_refresh'],
    bad: page(`<p>Today's offers.</p>`, {
      head: '<meta name="viewport" content="width=device-width, user-scalable=no, maximum-scale=1"><meta http-equiv="refresh" content="30">',
    }),
    good: page(`<p>Today's offers.</p>`),
  },
  {
    kind: 'frames-title',
    what: 'an iframe without a title, an empty <title>',
    fails: ['a11y_frame_title', 'a11y_document_title'],
    bad: page(`<iframe src="/a11y/frame" width="300" height="80"></iframe>`, { title: '' }),
    good: page(`<iframe src="/a11y/frame" width="300" height="80" title="Opening hours"></iframe>`),
  },
];

/** Routes for every fixture page (`/a11y/<kind>/bad` and `/good`) plus their image and frame. */
export function a11ySite(): Record<string, FixtureHandler> {
  const html = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'max-age=60' };
  const routes: Record<string, FixtureHandler> = {
    '/a11y/img.gif': { headers: { 'content-type': 'image/gif', 'cache-control': 'max-age=3600' }, body: gif },
    '/a11y/frame': {
      headers: html,
      body: '<!doctype html><html lang="en"><head><title>Hours</title></head><body><p>Open 9 to 5.</p></body></html>',
    },
  };
  for (const f of a11yFixtures) {
    routes[`/a11y/${f.kind}/bad`] = { headers: html, body: f.bad };
    routes[`/a11y/${f.kind}/good`] = { headers: html, body: f.good };
  }
  return routes;
}
