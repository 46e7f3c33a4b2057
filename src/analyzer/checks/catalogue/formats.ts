/**
 * How a check's value is shown, the same in every language: the unit and format types, and
 * the constructors a check's `value` is written with (checks/page/*.ts, checks/lab.ts...). The
 * value shapes are those the implementations write; a reader that meets a value of another
 * shape (a report stored by an older version) shows it generically.
 */

/** What a number measures. `count` is of the things the check's texts name (`counted`). */
export type NumberUnit = 'milliseconds' | 'bytes' | 'count' | 'percent' | 'score' | 'unitless' | 'http_status';

/**
 * How a value is shown:
 * - `text`: a string (null: none);
 * - `url`: an address;
 * - `boolean`: yes or no;
 * - `number`: a number in `unit` (`decimals` at most);
 * - `metric`: a lab timing `{ms, score}` (score 0-1, Lighthouse's);
 * - `list`: strings, one per item;
 * - `counts`: an object of name to a count (or to `{count, bytes}`), as a short table;
 * - `fields`: an object whose keys are shown with the check's `fields` labels, each value
 *   in its own format, as a short table.
 */
export type ValueFormat = FieldFormat | { type: 'fields'; fields: Record<string, FieldFormat> };

/** The format of a value that is not itself a table of fields (fields do not nest). */
export type FieldFormat =
  | { type: 'text' }
  | { type: 'url' }
  | { type: 'boolean' }
  | { type: 'number'; unit: NumberUnit; decimals?: number }
  | { type: 'metric'; unit: 'milliseconds' }
  | { type: 'list' }
  | { type: 'counts' };

/** The headline unit of a check's value (what a column of values would be labelled with). */
export type ValueUnit = NumberUnit | 'text' | 'url' | 'boolean' | 'list' | 'table';

/** A check's unit and format. */
export interface ValueSpec {
  unit: ValueUnit;
  format: ValueFormat;
}

/** A string (null: none). */
export const text: ValueSpec = { unit: 'text', format: { type: 'text' } };
/** An address. */
export const url: ValueSpec = { unit: 'url', format: { type: 'url' } };
/** Strings, one per item. */
export const list: ValueSpec = { unit: 'list', format: { type: 'list' } };
/** A number in `unit`, `decimals` at most. */
export const num = (unit: NumberUnit, decimals?: number): ValueSpec => ({
  unit,
  format: decimals === undefined ? { type: 'number', unit } : { type: 'number', unit, decimals },
});
/** A count of the things the check's texts name (`counted`). */
export const count = num('count');
/** An object whose keys are shown with the check's `fields` labels, each in its format. */
export const table = (fields: Record<string, FieldFormat>): ValueSpec => ({
  unit: 'table',
  format: { type: 'fields', fields },
});
/** A number in `unit`, as one field of a table. */
export const n = (unit: NumberUnit): FieldFormat => ({ type: 'number', unit });
/** A lab timing `{ms, score}`. */
export const metric: ValueSpec = { unit: 'milliseconds', format: { type: 'metric', unit: 'milliseconds' } };
