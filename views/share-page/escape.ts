import escape from 'escape-html';

/** Escapes text for HTML element content and attribute values (the escape-html library). */
export function escapeHtml(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- takes any value by design, like escape-html itself; callers JSON-encode objects first
  return escape(typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));
}
