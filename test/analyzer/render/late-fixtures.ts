/**
 * Fixture pages that keep moving after their load event, for the rendering analyzer's tests and
 * bench/lighthouse: a hero whose address comes from a fetch, a consent banner over images
 * without dimensions, a promo bar, a script lazy loader, a font swap, a carousel, long tasks and
 * a client-side route change. Each does what real pages do, at its own pace; none is timed
 * to any tool's window.
 */
import { readFileSync } from 'node:fs';
import { prose } from '../fixtures/pages.ts';
import type { FixtureHandler } from '../fixtures/server.ts';
import { afterLoadAndFirstPaint, delayed, head, html, noisyJpeg, type RenderFixture } from './fixtures.ts';

/** A font for the font-swap page (Debian's fonts-dejavu-core, which Chromium depends on). */
const fontPath = '/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf';

const style = '<style>body{font:16px/1.5 sans-serif;margin:0 auto;max-width:60rem}img{display:block}</style>';

/** The pages with activity after load and what each does. */
export const latePages: RenderFixture[] = [
  {
    path: '/late/hero',
    kind: 'client',
    quality: 'poor',
    what: 'hero image whose address comes from a fetch after load',
  },
  {
    path: '/late/banner',
    kind: 'server',
    quality: 'poor',
    what: 'images without dimensions, consent banner after load',
  },
  { path: '/late/promo', kind: 'server', quality: 'good', what: 'a thin promo bar 0.8 s after load' },
  { path: '/late/lazy', kind: 'server', quality: 'good', what: 'script lazy loader after load, native lazy images' },
  { path: '/late/font', kind: 'server', quality: 'good', what: 'web font swapped in after load' },
  { path: '/late/carousel', kind: 'server', quality: 'good', what: 'a carousel turning forever (transforms)' },
  { path: '/late/tasks', kind: 'server', quality: 'poor', what: 'three long tasks after load' },
  { path: '/late/route', kind: 'client', quality: 'poor', what: 'client-side route change with fetched content' },
];

function heroPage(): string {
  return `${head('Late hero', style)}<body><header><strong>Late hero</strong></header><main id="main"></main>
<script>
  addEventListener('load', async () => {
    const data = await (await fetch('/late/hero.json')).json();
    const img = new Image(1200, 500);
    img.alt = 'Hero';
    img.src = data.src;
    document.getElementById('main').prepend(img);
  });
</script></body></html>`;
}

function bannerPage(): string {
  const images = [1, 2, 3].map((i) => `<img src="/late/photo-${i}.jpg" alt="Photo ${i}">`).join('\n');
  return `${head('Late banner', style)}<body><main><h1>Images without dimensions</h1>
${prose(60)}${images}${prose(200)}</main>
<script>
  addEventListener('load', () => setTimeout(() => {
    const bar = document.createElement('div');
    bar.style.cssText = 'height:240px;background:#eee;padding:1rem';
    bar.textContent = 'We use cookies. Accept?';
    document.body.prepend(bar);
  }, 800));
</script></body></html>`;
}

function promoPage(): string {
  return `${head('Late promo', style)}<body><main><h1>A page with a promo bar</h1>${prose(400)}</main>
<script>
  addEventListener('load', () => setTimeout(() => {
    const bar = document.createElement('div');
    bar.style.cssText = 'height:24px;background:#fd0';
    bar.textContent = 'Free shipping this week';
    document.body.prepend(bar);
  }, 800));
</script></body></html>`;
}

function lazyPage(): string {
  const below = [1, 2, 3]
    .map((i) => `<img src="/late/photo-${i}.jpg" loading="lazy" width="600" height="400" alt="Below ${i}">`)
    .join('\n');
  return `${head('Lazy images', style)}<body><h1>Lazy images</h1>
<img data-src="/late/lazy-hero.jpg" width="1000" height="420" alt="Hero, loaded by a script">
${prose(150)}<div style="height:5000px"></div>${below}
<script>
  addEventListener('load', () => setTimeout(() => {
    for (const img of document.querySelectorAll('img[data-src]')) img.src = img.dataset.src;
  }, 100));
</script></body></html>`;
}

function fontPage(): string {
  const face =
    "<style>@font-face{font-family:Late;src:url(/late/font.ttf) format('truetype');font-display:swap}" +
    '.fonts h1,.fonts p{font-family:Late,serif}</style>';
  return `${head('Font swap', style + face)}<body><main><h1>A heading in a web font</h1>${prose(250)}</main>
<script>addEventListener('load', () => document.body.classList.add('fonts'));</script></body></html>`;
}

function carouselPage(): string {
  const slides = [1, 2, 3]
    .map((i) => `<img src="/late/photo-${i}.jpg" width="600" height="400" alt="Slide ${i}">`)
    .join('');
  return `${head('Carousel', `${style}<style>.track{display:flex;transition:transform .3s}.frame{width:600px;overflow:hidden}</style>`)}
<body><h1>Carousel</h1><div class="frame"><div class="track" id="track">${slides}</div></div>${prose(200)}
<script>
  let n = 0;
  setInterval(() => {
    n = (n + 1) % 3;
    document.getElementById('track').style.transform = 'translateX(' + (-600 * n) + 'px)';
  }, 600);
</script></body></html>`;
}

function tasksPage(): string {
  return `${head('Long tasks after load', style)}<body><main><h1>Busy after load</h1>${prose(300)}</main>
<script>
  const busy = (ms) => { const until = performance.now() + ms; while (performance.now() < until) {} };
  // After load and after the first paint (a busy machine may paint later than load), 0.2-0.3 s
  // apart: far inside the 1 s quiet window, even when a busy machine delays a timer.
  ${afterLoadAndFirstPaint}.then(() => {
    setTimeout(() => busy(180), 200);
    setTimeout(() => busy(150), 600);
    setTimeout(() => busy(170), 1000);
  });
</script></body></html>`;
}

function routePage(): string {
  return `${head('Client-side routes', style)}<body><nav><a href="/late/route">Home</a></nav>
<main id="main"><p>Loading the latest article...</p></main>
<script>
  addEventListener('load', () => setTimeout(async () => {
    history.pushState({}, '', '/late/route/article');
    const article = await (await fetch('/late/route/article.json')).json();
    document.title = article.title;
    document.getElementById('main').innerHTML = '<h1>' + article.title + '</h1>' +
      '<img src="/late/route.jpg" width="1000" height="500" alt="Article">' + article.body;
  }, 300));
</script></body></html>`;
}

/** Routes of every page in {@link latePages}. */
export async function lateSite(): Promise<Record<string, FixtureHandler>> {
  const jpeg = { 'content-type': 'image/jpeg', 'cache-control': 'max-age=3600' };
  const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  const [hero, photo, lazyHero, route] = await Promise.all([
    noisyJpeg(1200, 500, 3),
    noisyJpeg(600, 400, 4),
    noisyJpeg(1000, 420, 5),
    noisyJpeg(1000, 500, 6),
  ]);
  const image = (body: Buffer, ms: number) => delayed({ headers: jpeg, body }, ms);
  return {
    '/late/hero': { headers: html, body: heroPage() },
    '/late/hero.json': delayed({ headers: json, body: JSON.stringify({ src: '/late/hero.jpg' }) }, 900),
    '/late/hero.jpg': image(hero, 600),
    '/late/banner': { headers: html, body: bannerPage() },
    '/late/photo-1.jpg': image(photo, 100),
    '/late/photo-2.jpg': image(photo, 200),
    '/late/photo-3.jpg': image(photo, 300),
    '/late/promo': { headers: html, body: promoPage() },
    '/late/lazy': { headers: html, body: lazyPage() },
    '/late/lazy-hero.jpg': image(lazyHero, 400),
    '/late/font': { headers: html, body: fontPage() },
    '/late/font.ttf': delayed({ headers: { 'content-type': 'font/ttf' }, body: readFileSync(fontPath) }, 700),
    '/late/carousel': { headers: html, body: carouselPage() },
    '/late/tasks': { headers: html, body: tasksPage() },
    '/late/route': { headers: html, body: routePage() },
    '/late/route/article.json': delayed(
      {
        headers: json,
        body: JSON.stringify({ title: 'The article behind the route', body: prose(300) }),
      },
      600,
    ),
    '/late/route.jpg': image(route, 500),
  };
}
