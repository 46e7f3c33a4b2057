import { validationError } from '../errors.ts';

/** Why PostgreSQL could not store `text` (text and jsonb refuse NUL and lone surrogates), or null. */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  // isWellFormed is native, and constant time on a one-byte string (no surrogates fit in one).
  if (!text.isWellFormed()) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return null;
}

/**
 * Refuses text PostgreSQL cannot store anywhere in a procedure's input (query, path params or
 * body, at any depth, keys and values): NUL characters and unpaired UTF-16 surrogates, with a
 * 422 on the top-level field, before any handler runs, so nothing stored is touched and the
 * database never answers a 500. Iterative, so deeply nested bodies are safe.
 */
export function rejectUnstorableText(input: unknown): void {
  if (input === null || typeof input !== 'object') return;
  const stack: Array<[unknown, string]> = Object.entries(input).map(([field, value]) => [value, field]);
  for (const field of Object.keys(input)) {
    const why = unstorable(field);
    if (why) throw validationError(field.slice(0, 64), `A field name ${why}.`);
  }
  while (stack.length) {
    const [value, field] = stack.pop()!;
    if (typeof value === 'string') {
      const why = unstorable(value);
      if (why) throw validationError(field, `The ${field} ${why}.`);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const why = unstorable(key);
        if (why) throw validationError(field, `The ${field} has a key that ${why}.`);
        stack.push([child, field]);
      }
    }
  }
}
