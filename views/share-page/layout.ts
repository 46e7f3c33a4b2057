/**
 * The frame of every share page: head, meta tags and the one stylesheet (screen and print).
 * No scripts and no external resources: the pages are served with `default-src 'none'` and
 * inline styles only (facade/pages.ts).
 */
import { escapeHtml } from './escape.ts';

/** Link-preview meta (`og:` and `twitter:`), written into the head. */
export interface PreviewMeta {
  title: string;
  description: string;
  /** Absolute address of the page, when the service knows its public URL. */
  url?: string;
}

const styles = `
:root{color-scheme:light dark;--good:#0b7a3b;--average:#b25e00;--poor:#c0261d;--muted:#5f6368;--line:#8884;--card:#f6f7f9}
@media (prefers-color-scheme: dark){:root{--good:#5fd58a;--average:#ffb454;--poor:#ff8a80;--muted:#a8adb3;--card:#1d2025}}
*{box-sizing:border-box}
body{font:15px/1.55 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.2rem 0 .4rem;overflow-wrap:anywhere}h1 .code{font-size:.85em;font-weight:600}
h2{font-size:1.25rem;margin:2.2rem 0 .6rem;padding-bottom:.25rem;border-bottom:2px solid var(--line)}
h3{font-size:1.05rem;margin:0}
.muted,.eyebrow{color:var(--muted)}.eyebrow{text-transform:uppercase;letter-spacing:.06em;font-size:.8rem;margin:0}
code,.code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
a{color:inherit}
.overview{display:flex;flex-wrap:wrap;gap:1.5rem 2.5rem;align-items:center;margin-top:1.2rem}
.gauge{width:9.5rem;height:9.5rem;flex:none}.gauge .track{stroke:var(--line)}
.gauge .score{font:700 30px system-ui,sans-serif;fill:currentColor}.gauge .of{font:13px system-ui,sans-serif;fill:var(--muted)}
.grade{display:inline-block;padding:.15rem .65rem;border-radius:.4rem;font-weight:700;color:#fff}
.good{--tone:var(--good)}.decent,.average{--tone:var(--average)}.bad,.poor{--tone:var(--poor)}
.grade.good{background:#0b7a3b}.grade.decent{background:#a65500}.grade.bad{background:#b3261e}
.gauge .arc{stroke:var(--tone)}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid var(--line);padding:.35rem .6rem;text-align:left;vertical-align:top}
thead th{font-size:.85rem;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.counts{flex:1 1 20rem}
.pass{color:var(--good);font-weight:600}.fail{color:var(--poor);font-weight:600}
.band{font-weight:600;color:var(--tone)}.band::before{content:"";display:inline-block;width:.7em;height:.7em;margin-right:.4em;background:var(--tone)}
.band.good::before{border-radius:50%}.band.poor::before{transform:rotate(45deg) scale(.85)}
ol.fixes{padding:0;list-style:none;counter-reset:fix}
ol.fixes>li,.check{border:1px solid var(--line);border-left:4px solid var(--tone,var(--line));border-radius:.4rem;padding:.75rem 1rem;margin:.7rem 0;background:var(--card)}
.check.failed{--tone:var(--poor)}.check.passed{--tone:var(--good)}ol.fixes>li{--tone:var(--poor)}
.row{display:flex;flex-wrap:wrap;gap:.3rem 1rem;align-items:baseline;justify-content:space-between}
.cost{font-weight:700;color:var(--poor);white-space:nowrap}.cost.unscored{color:var(--muted);font-weight:400}
.fix{margin:.45rem 0 0}.fix strong{color:var(--tone)}
dl.value{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}dl.value dt{color:var(--muted)}dl.value dd{margin:0;min-width:0}
dl.value table{width:auto}dl.value table td,dl.value table th{padding:.15rem 1.5rem .15rem 0;border:0;font-weight:400}dl.value table th{color:var(--muted)}
ul.items{margin:0;padding-left:1.1rem}ul.items li{overflow-wrap:anywhere}
ul.nodes{margin:.5rem 0 0;padding-left:1.1rem}ul.nodes li{margin:.35rem 0;overflow-wrap:anywhere}.why{margin:.1rem 0;white-space:pre-line}
pre.snippet{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;margin:.15rem 0;padding:.3rem .5rem;background:var(--line);border-radius:.3rem;white-space:pre-wrap;overflow-wrap:anywhere}
ul.a11y-review{padding:0;list-style:none}ul.a11y-review>li{border:1px solid var(--line);border-radius:.4rem;padding:.75rem 1rem;margin:.7rem 0;background:var(--card)}
.about{margin:.45rem 0 0}
form{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}input{font:inherit;padding:.4rem}button{font:inherit;padding:.4rem .9rem}
.error{color:var(--poor)}
@media print{
  :root{color-scheme:light;--good:#0b6b34;--average:#8a4a00;--poor:#a61e17;--muted:#444;--card:#fff;--line:#bbb}
  @page{margin:15mm}
  body{font-size:10.5pt;max-width:none;margin:0;padding:0;color:#000;background:#fff}
  h2{break-after:avoid;margin-top:1.2rem}
  ol.fixes>li,.check,tr,.overview{break-inside:avoid}
  .grade,.gauge,.band::before{print-color-adjust:exact;-webkit-print-color-adjust:exact}
  a{text-decoration:none}a.learn::after{content:" (" attr(href) ")";font-size:.85em;color:#444;overflow-wrap:anywhere}
}
`;

function previewTags(meta: PreviewMeta): string {
  const tags: Array<[attr: 'property' | 'name', key: string, value: string]> = [
    ['property', 'og:type', 'website'],
    ['property', 'og:title', meta.title],
    ['property', 'og:description', meta.description],
    ...(meta.url ? [['property', 'og:url', meta.url] as ['property', string, string]] : []),
    ['name', 'twitter:card', 'summary'],
    ['name', 'twitter:title', meta.title],
    ['name', 'twitter:description', meta.description],
  ];
  return [
    `<meta name="description" content="${escapeHtml(meta.description)}">`,
    ...tags.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}">`),
  ].join('\n');
}

/** A whole page: `title` in the head, `body` as given (already escaped by the caller). */
export function layout(title: string, body: string, preview?: PreviewMeta): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
${preview ? previewTags(preview) : ''}
<style>${styles}</style></head><body>
${body}
</body></html>`;
}
