import { validationError } from '../errors.ts';

/**
 * Refuses NUL characters anywhere in a procedure's input (query, path params or body, at any
 * depth) with a 422 on the top-level field: PostgreSQL cannot store them in text, and no
 * field of ours means anything with one. Iterative, so deeply nested bodies are safe.
 */
export function rejectNulCharacters(input: unknown): void {
  if (input === null || typeof input !== 'object') return;
  const stack: Array<[unknown, string]> = Object.entries(input).map(([field, value]) => [value, field]);
  while (stack.length) {
    const [value, field] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw validationError(field, `The ${field} must not contain NUL characters.`);
    } else if (value !== null && typeof value === 'object') {
      for (const child of Object.values(value)) stack.push([child, field]);
    }
  }
}
