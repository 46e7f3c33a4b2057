/**
 * Numeric ids in paths (`/api/v1/reports/{id}`, `/reports/{id}`): digits without a leading
 * zero, within PostgreSQL's `integer`. Anything else names nothing: callers answer 404, never
 * a validation error, so a path cannot tell a malformed id from a missing one.
 */
export function parseId(text: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= 2_147_483_647 ? id : undefined;
}
