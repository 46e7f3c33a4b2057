/**
 * The service's API as the CI command calls it: JSON over HTTP with the API key, every call
 * under a deadline. A failure (unreachable, a non-2xx answer) is a {@link ServiceError}: the
 * command exits 2 with what the service said.
 */

export class ServiceError extends Error {}

export interface Client {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** A client of `server` with `key`; each call has `timeoutMs`. */
export function createClient(server: string, key: string, timeoutMs: number): Client {
  let base = server;
  while (base.endsWith('/')) base = base.slice(0, -1);
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${key}`,
            Accept: 'application/json',
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ServiceError(`${method} ${path}: the service did not answer (${why}).`);
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!res.ok) {
        // The service's error shape (docs/api.md): {message, errors?}.
        const error = (parsed ?? {}) as { message?: string; errors?: unknown };
        const said = error.message ?? text.slice(0, 200);
        const fields = error.errors ? ` ${JSON.stringify(error.errors)}` : '';
        throw new ServiceError(`${method} ${path}: ${res.status} ${said}${fields}`);
      }
      if (parsed === undefined) throw new ServiceError(`${method} ${path}: the answer is not JSON.`);
      return parsed as T;
    },
  };
}
