/**
 * Checks real responses against the OpenAPI document the service serves: the status must
 * be one the operation documents, the body must match that status's schema (validated by
 * openapi-backend's response validator), and required headers (Retry-After) must be there.
 * Route suites (helpers/http.ts `request`) and the property suites call it on every answer
 * to a documented operation; paths the document does not describe are left alone.
 */
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { buildOpenApiDocument } from '../../facade/openapi.ts';
import { appRouter } from '../../routers/root.ts';

export interface Exchange {
  method: string;
  /** Path with its query, as sent. */
  path: string;
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  /** Parsed JSON, text, or undefined for a binary or empty body. */
  body: unknown;
}

let backend: Promise<OpenAPIBackend> | undefined;

/** The same document /api/openapi.json serves, loaded into openapi-backend once per test file. */
export function conformanceBackend(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    // quick: the document's own validity is checked as 3.1 by openapi.test.ts (openapi-backend's
    // document check is 3.0's); here it only compiles the response schemas.
    const definition = structuredClone(buildOpenApiDocument(appRouter)) as unknown as Document;
    const api = new OpenAPIBackend({ definition, strict: true, quick: true, ajvOpts: { strict: false } });
    await api.init();
    return api;
  })();
  return backend;
}

function headerOf(headers: Exchange['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** What is wrong with an answer to a documented operation; empty when it conforms or is undocumented. */
export async function conformanceProblems(ex: Exchange): Promise<string[]> {
  const api = await conformanceBackend();
  const url = new URL(ex.path, 'http://service.test');
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return [];
  }
  const operation = api.router.matchOperation({ method: ex.method.toLowerCase(), path, headers: {} });
  if (!operation?.operationId) return [];
  // Node itself answers 408 and 431 (in our error shape) before any route runs: transport-level
  // answers any path may get, not an operation's.
  if (ex.status === 408 || ex.status === 431) return [];
  // A dot segment (`/reports/.`) is an id to the server but is normalised away by the matcher,
  // which would then judge the answer against another operation.
  if (/(^|\/)\.\.?(\/|$)/.test(ex.path.split('?')[0] ?? '')) return [];
  // Likewise a segment the matcher trims away (`/reports/%0C` is the id "\f" to the server) or
  // splits (`/reports/%2F` is the id "/"): a template with another number of segments than the
  // path as sent (before decoding, as the server routes it) is another operation.
  const segments = (p: string) => p.replace(/\/+$/, '').split('/').length;
  if (segments(operation.path) !== segments(url.pathname)) return [];
  const where = `${ex.method} ${ex.path.slice(0, 200)} -> ${ex.status} (${operation.operationId})`;
  const documented = operation.responses?.[String(ex.status)] as
    { content?: Record<string, unknown>; headers?: Record<string, { $ref?: string; required?: boolean }> } | undefined;
  if (!documented) return [`${where}: status ${ex.status} is not documented`];
  const problems: string[] = [];
  for (const [name, ref] of Object.entries(documented.headers ?? {})) {
    const spec = ref.$ref
      ? (api.definition.components?.headers?.[ref.$ref.split('/').pop()!] as { required?: boolean })
      : ref;
    if (spec?.required && headerOf(ex.headers, name) === undefined)
      problems.push(`${where}: header ${name} is missing`);
  }
  const type = headerOf(ex.headers, 'content-type')?.split(';')[0]?.trim();
  if (ex.method.toUpperCase() === 'HEAD' || ex.body === undefined || ex.body === '') return problems;
  if (type && documented.content && !documented.content[type]) {
    problems.push(`${where}: content type ${type} is not documented`);
    return problems;
  }
  if (type !== 'application/json') return problems;
  const result = api.validator.validateResponse(ex.body, operation, ex.status);
  for (const e of result.errors ?? []) {
    problems.push(`${where}: body ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
  return problems;
}

/** Throws (failing the test) when an answer does not match the document. */
export async function expectConformant(ex: Exchange): Promise<void> {
  const problems = await conformanceProblems(ex);
  if (problems.length) {
    throw new Error(
      `response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${JSON.stringify(ex.body).slice(0, 500)}`,
    );
  }
}
