/** A check's value and details as HTML: text, lists and short tables, all escaped. */
import { escapeHtml } from './escape.ts';
import { formatCheckValue, inline, type ShownValue } from './format-value.ts';
import type { CheckView } from './view.ts';

/** Most list items or table rows shown of one value. */
const maxItems = 20;

/** A shown value as HTML. */
export function shownHtml(shown: ShownValue): string {
  switch (shown.kind) {
    case 'none':
      return '<span class="muted">None</span>';
    case 'text':
      return shown.code ? `<span class="code">${escapeHtml(shown.text)}</span>` : escapeHtml(shown.text);
    case 'list': {
      const more =
        shown.items.length > maxItems ? `<li class="muted">and ${shown.items.length - maxItems} more</li>` : '';
      return `<ul class="items">${shown.items
        .slice(0, maxItems)
        .map((i) => `<li>${escapeHtml(i)}</li>`)
        .join('')}${more}</ul>`;
    }
    case 'table':
      return `<table><tbody>${shown.rows
        .slice(0, maxItems)
        .map(
          ([label, v]) =>
            `<tr><th scope="row">${escapeHtml(label)}</th><td>${v.kind === 'table' ? escapeHtml(inline(v)) : shownHtml(v)}</td></tr>`,
        )
        .join('')}</tbody></table>`;
  }
}

/** The value and the details of a check as a definition list. */
export function valueHtml(check: CheckView): string {
  const value = formatCheckValue(check.value, check.entry);
  const details = check.details.length
    ? `<dt>Details</dt><dd>${shownHtml({
        kind: 'list',
        items: check.details.map((d) => inline(formatCheckValue(d, undefined))),
      })}</dd>`
    : '';
  return `<dl class="value"><dt>Measured</dt><dd>${shownHtml(value)}</dd>${details}</dl>`;
}
