import type { AnyRouter } from '@trpc/server';
import escapeHtml from 'escape-html';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { errorCodes, type PublicErrorCode } from '../src/errors.ts';
import { buildRouteTable, methodHasBody, type RouteEntry } from './route-table.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, Json>;
}

/** Response headers named by the document (components.headers). */
const headers: Record<string, Json> = {
  'X-Request-Id': {
    description: 'The caller’s X-Request-Id when it is sane, else one made up; on every response.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'string' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'string' } },
  'X-RateLimit-Reset': { description: 'When the window resets (epoch seconds).', schema: { type: 'string' } },
  Allow: { description: 'The methods the path answers.', schema: { type: 'string' } },
};
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** `{code, message, status, errors?}`: the body of every failure but siteverify's. */
const errorSchema = {
  type: 'object',
  description: 'A failure. `code` is stable (see the table in docs/api.md); `message` is for people.',
  properties: {
    code: { type: 'string', enum: Object.keys(errorCodes) },
    message: { type: 'string' },
    status: { type: 'integer' },
    errors: {
      type: 'object',
      description: 'Field name to its messages (422 only).',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    reason: {
      type: 'string',
      description: 'A machine-readable cause within the code (why a URL could not be analysed, on a 422).',
    },
  },
  required: ['code', 'message', 'status'],
  additionalProperties: false,
};

/**
 * Which codes a route may answer, from what its meta says: the auth kind (401, 403), its
 * rate limit (429), its input (422) and body (400, 413, 415), path parameters (404), the
 * database behind every route (503), plus the codes it names itself (`meta.errorCodes`).
 */
function failureCodesOf(route: RouteEntry): PublicErrorCode[] {
  const codes = new Set<PublicErrorCode>(['ERR_INTERNAL', 'ERR_UNAVAILABLE']);
  if (route.meta.auth === 'apiKey') {
    for (const c of ['ERR_API_KEY_MISSING', 'ERR_API_KEY_INVALID', 'ERR_RATE_LIMITED'] as const) codes.add(c);
  }
  if (route.meta.auth === 'origin') codes.add('ERR_ORIGIN_NOT_ALLOWED');
  if (route.meta.rateLimit) codes.add('ERR_RATE_LIMITED');
  if (!route.voidInput) codes.add('ERR_VALIDATION');
  if (methodHasBody(route.method)) {
    for (const c of ['ERR_BAD_REQUEST', 'ERR_PAYLOAD_TOO_LARGE', 'ERR_UNSUPPORTED_MEDIA_TYPE'] as const) codes.add(c);
  }
  if (route.path.includes('{')) codes.add('ERR_NOT_FOUND');
  for (const c of route.meta.errorCodes ?? []) codes.add(c);
  return [...codes];
}

function errorResponses(route: RouteEntry, limited: boolean): Record<string, Json> {
  const byStatus = new Map<number, PublicErrorCode[]>();
  for (const code of failureCodesOf(route)) {
    const { status } = errorCodes[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const hs: Record<string, Json> = { 'X-Request-Id': header('X-Request-Id') };
    if (status === 429 || status === 503) hs['Retry-After'] = header('Retry-After');
    if (status === 429 || (limited && status !== 401)) for (const h of rateLimitHeaders) hs[h] = header(h);
    const schema: Json = {
      allOf: [
        { $ref: '#/components/schemas/Error' },
        {
          type: 'object',
          properties: { code: { type: 'string', enum: codes }, status: { const: status } },
          ...(status === 422 ? { required: ['errors'] } : {}),
        },
      ],
    };
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${errorCodes[c].description}`).join(' '),
      headers: hs,
      content: { 'application/json': { schema } },
    };
  }
  return out;
}

/**
 * Siteverify speaks the Turnstile/reCAPTCHA protocol: every verdict, failures included, is
 * HTTP 200 with `success` and `error-codes`; only a rate-limited call is a 429 (with a verdict).
 */
function siteverifyResponses(ok: Json): Record<string, Json> {
  const schema = (ok.content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
  const content = { 'application/json': { schema } };
  return {
    '200': {
      description:
        'A verdict: `success: true` once per token, else `success: false` with `error-codes` ' +
        '(`missing-input-secret`, `invalid-input-secret`, `missing-input-response`, `invalid-input-response`, ' +
        '`timeout-or-duplicate`, `bad-request`, `internal-error`).',
      headers: { 'X-Request-Id': header('X-Request-Id') },
      content,
    },
    '429': {
      description: 'Rate limited: a verdict with `error-codes: ["rate-limited"]`.',
      headers: { 'X-Request-Id': header('X-Request-Id'), 'Retry-After': header('Retry-After') },
      content,
    },
  };
}

/** The OpenAPI 3.1 document of every REST route, generated from procedure meta. */
export function buildOpenApiDocument(router: AnyRouter, baseUrl = '/'): OpenAPIObject {
  const doc = generateOpenApiDocument(router as never, {
    title: 'Audit reports and challenge verification API',
    description:
      'Area A: projects and web page audit reports (API key as Bearer token). ' +
      'Area B: challenges for browsers on registered origins, and one-time token verification for servers.',
    version: '1.0.0',
    openApiVersion: '3.1.0',
    baseUrl,
    docsUrl: '/api/docs',
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
    },
  });
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  // Alias methods (PATCH beside PUT) document the same operation under their own method.
  for (const route of buildRouteTable(router)) {
    if (!route.aliasOf) continue;
    const item = paths[route.path];
    const op = item?.[route.aliasOf.toLowerCase()];
    if (item && op)
      item[route.method.toLowerCase()] = { ...op, operationId: `${op.operationId}-${route.method.toLowerCase()}` };
  }
  // trpc-to-openapi documents 200 and its own error shapes; the routes answer what the
  // facade makes of meta: the success status, our error body, and their headers.
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  const components = { ...doc.components, schemas: { ...schemas, Error: errorSchema }, headers };
  doc.components = components as OpenAPIObject['components'];
  for (const route of buildRouteTable(router)) {
    const op = paths[route.path]?.[route.method.toLowerCase()];
    if (!op) continue;
    const ok = op.responses['200'] ?? { description: 'Successful response' };
    if (route.meta.errorShape === 'siteverify') {
      op.responses = siteverifyResponses(ok);
      continue;
    }
    const content = ok.content as Record<string, unknown> | undefined;
    if (route.meta.responseType && content?.['application/json']) {
      ok.content = { [route.meta.responseType]: content['application/json'] };
    }
    const limited = route.meta.auth === 'apiKey' || route.meta.rateLimit !== undefined;
    const okHeaders: Record<string, Json> = { 'X-Request-Id': header('X-Request-Id') };
    if (limited) for (const h of rateLimitHeaders) okHeaders[h] = header(h);
    op.responses = {
      [String(route.meta.successStatus ?? 200)]: { ...ok, headers: okHeaders },
      ...errorResponses(route, limited),
    };
  }
  return doc;
}

const escape = (s: unknown) => escapeHtml(typeof s === 'string' ? s : s === undefined ? '' : JSON.stringify(s));

interface Schema {
  type?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
}

function schemaSummary(s: Schema | undefined): string {
  if (!s) return '';
  const parts = [typeof s.type === 'string' ? s.type : s.type ? JSON.stringify(s.type) : ''];
  if (s.enum) parts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.filter(Boolean).join('; ');
}

function renderOperation(path: string, method: string, op: Operation): string {
  const params = op.parameters ?? [];
  const bodySchema = Object.values(op.requestBody?.content ?? {})[0]?.schema;
  const bodyFields = Object.entries(bodySchema?.properties ?? {});
  const rows = [
    ...params.map((p) => [p.name, p.in, p.required ? 'yes' : 'no', schemaSummary(p.schema), p.description ?? '']),
    ...bodyFields.map(([name, s]) => [
      name,
      'body',
      bodySchema?.required?.includes(name) ? 'yes' : 'no',
      schemaSummary(s),
      s.description ?? '',
    ]),
  ];
  const table = rows.length
    ? `<table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th><th>Notes</th></tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`
    : '<p>No parameters.</p>';
  const responses = Object.entries(op.responses)
    .map(([status, r]) => `<li><code>${escape(status)}</code> ${escape(r.description)}</li>`)
    .join('');
  return `<section id="${escape(op.operationId)}">
<h2><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h2>
${op.summary ? `<p>${escape(op.summary)}</p>` : ''}${op.description ? `<p>${escape(op.description)}</p>` : ''}
<p>Authentication: ${op.security?.length ? 'Bearer API key' : 'none (see the route notes)'}</p>
${table}
<p>Responses:</p><ul>${responses}</ul>
</section>`;
}

/**
 * A human-readable API reference rendered on the server from the same document: no
 * JavaScript, no CDN, readable in any browser or with curl.
 */
export function renderReferencePage(doc: OpenAPIObject): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      sections.push(renderOperation(path, method, op as Operation));
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} — API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
@media (prefers-color-scheme: dark){body{color:#e8e8e8;background:#141414}table,td,th{border-color:#444!important}}
code{font:14px ui-monospace,monospace}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5rem;font:600 13px ui-monospace,monospace}
.get{color:#0a7}.post{color:#07c}.put{color:#a60}.delete{color:#c33}
section{border-top:1px solid #8884;padding-top:.5rem;margin-top:1.5rem}
</style></head><body>
<h1>${escape(doc.info.title)}</h1>
<p>${escape(doc.info.description)}</p>
<p>Version ${escape(doc.info.version)}. The machine-readable document is at
<a href="/api/openapi.json"><code>/api/openapi.json</code></a>.
Errors come as <code>{"code", "message", "status", "errors"?}</code> with a stable <code>code</code>;
siteverify answers in the Turnstile/reCAPTCHA shape.</p>
${sections.join('\n')}
</body></html>`;
}
