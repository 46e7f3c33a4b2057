/**
 * A check's value as people read it: numbers in their units, lists, short tables; never
 * JSON. The catalogue says how each check's value is shaped (formats.ts); a value of another
 * shape (a report stored by an older version) is shown by what it is.
 */
import type { CatalogueEntry, Counted, NumberUnit, ValueFormat } from '../../src/analyzer/checks/catalogue/index.ts';

/** A value ready to be written out: nothing, a line of text, a list, or label/value rows. */
export type ShownValue =
  | { kind: 'none' }
  | { kind: 'text'; text: string; code?: boolean }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; rows: Array<[label: string, value: ShownValue]> };

const none: ShownValue = { kind: 'none' };
const text = (t: string, code = false): ShownValue => ({ kind: 'text', text: t, ...(code ? { code } : {}) });

/** Words of the formatter (English; a language is one more entry). */
const words = { yes: 'Yes', no: 'No', none: 'None', items: 'items' };

function numberFormat(locale: string, digits = 0): Intl.NumberFormat {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits });
}

/** Bytes as bytes, KiB or MiB. */
export function formatBytes(bytes: number, locale = 'en'): string {
  if (Math.abs(bytes) < 1024) return `${numberFormat(locale).format(bytes)} bytes`;
  if (Math.abs(bytes) < 1024 * 1024) return `${numberFormat(locale, 1).format(bytes / 1024)} KiB`;
  return `${numberFormat(locale, 1).format(bytes / 1024 / 1024)} MiB`;
}

/** Milliseconds as ms below 10 s, else seconds. */
export function formatMilliseconds(ms: number, locale = 'en'): string {
  if (Math.abs(ms) < 10_000) return `${numberFormat(locale).format(ms)} ms`;
  return `${numberFormat(locale, 1).format(ms / 1000)} s`;
}

/** A number in `unit`; `counted` names what a count counts, by plural category ("1 link", "2 links"). */
export function formatNumber(
  value: number,
  unit: NumberUnit,
  options: { locale?: string; decimals?: number; counted?: Counted } = {},
): string {
  const locale = options.locale ?? 'en';
  switch (unit) {
    case 'milliseconds':
      return formatMilliseconds(value, locale);
    case 'bytes':
      return formatBytes(value, locale);
    case 'percent':
      return `${numberFormat(locale, options.decimals ?? 1).format(value)} %`;
    case 'score':
      return `${numberFormat(locale).format(value)} / 100`;
    case 'http_status':
      return `HTTP ${value}`;
    case 'count':
      return options.counted
        ? `${numberFormat(locale).format(value)} ${options.counted[new Intl.PluralRules(locale).select(value)] ?? options.counted.other}`
        : numberFormat(locale).format(value);
    case 'unitless':
      return numberFormat(locale, options.decimals ?? 3).format(value);
  }
}

/** A label for an object key the catalogue does not name: `missingAlt` -> "Missing alt". */
export function humanize(key: string): string {
  const spaced = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Any value by its own shape: scalars as text, arrays as lists, objects as tables. */
function generic(value: unknown, depth = 0): ShownValue {
  if (value === null || value === undefined || value === '') return none;
  if (typeof value === 'boolean') return text(value ? words.yes : words.no);
  if (typeof value === 'number') return text(numberFormat('en', 3).format(value));
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return none;
    return { kind: 'list', items: value.map((v) => inline(generic(v, depth + 1))) };
  }
  if (isRecord(value)) {
    if (depth > 2) return text(inline(generic(Object.values(value), depth + 1)));
    const rows = Object.entries(value).map(([k, v]) => [humanize(k), generic(v, depth + 1)] as [string, ShownValue]);
    return rows.length ? { kind: 'table', rows } : none;
  }
  return none; // stored results are JSON: no other types
}

/** A shown value on one line (for list items and nested cells). */
export function inline(shown: ShownValue): string {
  switch (shown.kind) {
    case 'none':
      return words.none;
    case 'text':
      return shown.text;
    case 'list':
      return shown.items.join(', ');
    case 'table':
      return shown.rows.map(([label, v]) => `${label}: ${inline(v)}`).join('; ');
  }
}

function counts(value: unknown, locale: string): ShownValue {
  if (!isRecord(value)) return generic(value);
  const rows = Object.entries(value).map(([name, v]): [string, ShownValue] => {
    if (typeof v === 'number') return [name, text(numberFormat(locale).format(v))];
    if (isRecord(v) && typeof v.count === 'number') {
      const size = typeof v.bytes === 'number' ? ` (${formatBytes(v.bytes, locale)})` : '';
      return [name, text(`${numberFormat(locale).format(v.count)}${size}`)];
    }
    return [name, generic(v)];
  });
  return rows.length ? { kind: 'table', rows } : none;
}

function byFormat(
  value: unknown,
  format: ValueFormat,
  entry: Pick<CatalogueEntry, 'counted' | 'fields'>,
  locale: string,
): ShownValue {
  if (value === null || value === undefined || value === '') return none;
  switch (format.type) {
    case 'text':
      return typeof value === 'string' ? text(value, true) : generic(value);
    case 'url':
      return typeof value === 'string' ? text(value, true) : generic(value);
    case 'boolean':
      return typeof value === 'boolean' ? text(value ? words.yes : words.no) : generic(value);
    case 'number':
      return typeof value === 'number'
        ? text(formatNumber(value, format.unit, { locale, decimals: format.decimals, counted: entry.counted }))
        : generic(value);
    case 'metric':
      if (isRecord(value) && typeof value.ms === 'number') return text(formatMilliseconds(value.ms, locale));
      return typeof value === 'number' ? text(formatMilliseconds(value, locale)) : generic(value);
    case 'list':
      if (!Array.isArray(value)) return generic(value);
      return value.length ? { kind: 'list', items: value.map((v) => inline(generic(v))) } : none;
    case 'counts':
      return counts(value, locale);
    case 'fields': {
      if (!isRecord(value)) return generic(value);
      const rows = Object.entries(value).map(([key, v]): [string, ShownValue] => {
        const label = entry.fields?.[key] ?? humanize(key);
        const sub = format.fields[key];
        return [label, sub ? byFormat(v, sub, { fields: undefined, counted: undefined }, locale) : generic(v)];
      });
      return rows.length ? { kind: 'table', rows } : none;
    }
  }
}

/** `value` of the check `entry` describes, as people read it; `entry` absent: by its shape. */
export function formatCheckValue(
  value: unknown,
  entry: Pick<CatalogueEntry, 'format' | 'counted' | 'fields'> | undefined,
  locale = 'en',
): ShownValue {
  return entry ? byFormat(value, entry.format, entry, locale) : generic(value);
}
