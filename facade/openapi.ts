import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { errorCodes, type PublicErrorCode } from '../src/errors.ts';
import { buildRouteTable, methodHasBody, type RouteEntry } from './route-table.ts';
import { SITEVERIFY_PATHS } from './siteverify.ts';
import { GATEWAY_AUTH_PATH } from './forward-auth.ts';
import type { Protocol } from '../src/captcha/protocols.ts';
import { providerNamed } from '../shared/providers.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
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
      // CommonMark, as every OpenAPI viewer renders descriptions: one list item per code.
      description: codes.map((c) => `- \`${c}\`: ${errorCodes[c].description}`).join('\n'),
      headers: hs,
      // An example of this status's own code (viewers would otherwise show the first code of all).
      content: {
        'application/json': {
          schema,
          example: {
            code: codes[0],
            message: errorCodes[codes[0]].description.replaceAll('`', ''),
            status,
            ...(status === 422 ? { errors: { field: ['The field is not valid.'] } } : {}),
          },
        },
      },
    };
  }
  return out;
}

/** Turnstile's `metadata` object, where its shape puts the score's reasons. */
const metadataSchema: Json = {
  type: 'object',
  properties: { reasons: { type: 'array', items: { type: 'string' } } },
  required: ['reasons'],
  additionalProperties: false,
};

/** The fields a provider's shape adds to our verdict (shared/providers.ts, src/captcha/protocols.ts). */
function providerFields(protocol: Protocol): Json {
  if (protocol === 'native') return {};
  const { reasons, onSuccess } = providerNamed(protocol).answer;
  return {
    ...(reasons === 'metadata' ? { metadata: metadataSchema } : {}),
    ...Object.fromEntries(Object.keys(onSuccess ?? {}).map((field) => [field, { type: 'boolean' }])),
  };
}

/**
 * Siteverify speaks the Turnstile/reCAPTCHA protocol: every verdict, failures included, is
 * HTTP 200 with `success` and `error-codes`; only a rate-limited call is a 429 (with a verdict).
 * `ok` is the procedure's own answer (our shape); a provider's path adds its fields.
 */
function siteverifyResponses(ok: Json, protocol: Protocol): Record<string, Json> {
  const own = (ok.content as Record<string, { schema: Json }> | undefined)?.['application/json']?.schema ?? {};
  const schema = { ...own, properties: { ...(own.properties as Json | undefined), ...providerFields(protocol) } };
  const content = { 'application/json': { schema } };
  return {
    '200': {
      description:
        'A verdict: `success: true` once per token, else `success: false` with `error-codes` ' +
        '(`missing-input-secret`, `invalid-input-secret`, `missing-input-response`, `invalid-input-response`, ' +
        '`timeout-or-duplicate`, `remoteip-mismatch` (the token was solved on another network than `remoteip`), `bad-request`, `internal-error`).',
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

/**
 * Siteverify's operation (documented by the procedure at its own path) at every path it is
 * served at, each in that path's shape.
 */
function documentSiteverify(paths: Record<string, Record<string, Operation>>, table: RouteEntry[]): void {
  const own = table.find((r) => r.protocol && !r.aliasOfPath);
  const op = own && paths[own.path]?.post;
  if (!op) return;
  const ok = op.responses['200'] ?? { description: 'Successful response' };
  for (const { path, protocol, summary, operation } of SITEVERIFY_PATHS) {
    paths[path] = {
      post: {
        ...op,
        operationId: `siteverify-${operation}`,
        summary,
        responses: siteverifyResponses(ok, protocol),
      } as Operation,
    };
  }
}

/** A request header the forward-auth endpoint reads from a trusted proxy (src/gateway/forwarded.ts). */
const forwardedHeader = (name: string, description: string): Json => ({
  name,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description,
});

/** The short plain-text reason of a refused forward-auth check. */
const reasonText = { 'text/plain': { schema: { type: 'string' } } };
const outcomeHeaders = {
  'X-Request-Id': header('X-Request-Id'),
  'X-Gateway-Outcome': {
    description: 'What the gateway decided: pass, challenge, refuse, deny or unknown.',
    schema: { type: 'string' },
  },
  'X-Gateway-Rule': { description: 'The rule that decided, URI-encoded.', schema: { type: 'string' } },
};

/**
 * Gateway mode's forward-auth endpoint (facade/forward-auth.ts, docs/gateway.md): answered ahead of Koa, not
 * a procedure, because a proxy calls it with the visitor's own headers and (nginx) method. It
 * is documented under GET, the method Caddy and Traefik use; it answers any method alike.
 */
function documentGatewayAuth(paths: Record<string, Record<string, Operation>>): void {
  paths[GATEWAY_AUTH_PATH] = {
    get: {
      operationId: 'gateway-auth',
      summary: 'Forward auth: may this request to a protected site pass?',
      description:
        'Called by a reverse proxy for every request to a protected host (nginx `auth_request`, Caddy ' +
        '`forward_auth`, Traefik `ForwardAuth`). The forwarded headers count only from the addresses in ' +
        "`GATEWAY_TRUSTED_PROXIES`; the clearance cookie comes in the visitor's `Cookie` header. The path names " +
        "the proxy's protocol, and only that protocol's headers are read for the original method and target " +
        '(nginx: `X-Original-Method`, `X-Original-URI`; Caddy and Traefik: `X-Forwarded-Method`, `X-Forwarded-Uri`). ' +
        'The target is decided on as the proxy serves it: decoded, slashes merged, dot segments resolved; one ' +
        "with no single reading is refused (403). Any method is answered alike: nginx's subrequest keeps the original one.",
      tags: ['gateway'],
      parameters: [
        {
          name: 'proxy',
          in: 'path',
          required: true,
          description: 'The protocol of the proxy asking: `nginx`, `caddy` or `traefik`.',
          schema: { type: 'string', enum: ['nginx', 'caddy', 'traefik'] },
        },
        forwardedHeader('X-Forwarded-For', "The visitor's address, as the proxy appended it."),
        forwardedHeader('X-Forwarded-Host', 'The protected host (else `Host`).'),
        forwardedHeader('X-Forwarded-Proto', '`https` or `http`.'),
        forwardedHeader('X-Forwarded-Method', 'The original method (Caddy, Traefik).'),
        forwardedHeader('X-Forwarded-Uri', 'The original path and query (Caddy, Traefik).'),
        forwardedHeader('X-Original-Method', 'The original method (nginx).'),
        forwardedHeader('X-Original-URI', 'The original path and query (nginx).'),
      ],
      responses: {
        '204': { description: 'Pass: the proxy lets the request through.', headers: outcomeHeaders },
        '302': {
          description:
            'Challenge (Caddy, Traefik): the proxy returns this redirect to the visitor, to the challenge page ' +
            'under `/.auditcaptcha/challenge` on the protected host.',
          headers: { ...outcomeHeaders, Location: { description: 'The challenge page.', schema: { type: 'string' } } },
        },
        '401': {
          description:
            'Challenge for nginx (its `error_page 401` shows the challenge page), or a request that is not a ' +
            'navigation and has no clearance (a short reason, never a page).',
          headers: outcomeHeaders,
          content: reasonText,
        },
        '403': {
          description:
            'Denied by a rule, a target with no single reading, or a host the gateway does not protect: a short reason.',
          headers: outcomeHeaders,
          content: reasonText,
        },
        '404': { description: 'No such proxy protocol.', content: reasonText },
      },
    } as Operation,
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
  const table = buildRouteTable(router);
  for (const route of table) {
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
  documentSiteverify(paths, table);
  documentGatewayAuth(paths);
  for (const route of table) {
    if (route.protocol) continue;
    const op = paths[route.path]?.[route.method.toLowerCase()];
    if (!op) continue;
    const ok = op.responses['200'] ?? { description: 'Successful response' };
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
