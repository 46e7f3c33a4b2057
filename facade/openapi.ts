import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { buildRouteTable } from './route-table.ts';

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
  // Alias methods (PATCH beside PUT) document the same operation under their own method.
  for (const route of buildRouteTable(router)) {
    if (!route.aliasOf) continue;
    const item = (doc.paths as any)?.[route.path];
    const op = item?.[route.aliasOf.toLowerCase()];
    if (op) item[route.method.toLowerCase()] = { ...op, operationId: `${op.operationId}-${route.method.toLowerCase()}` };
  }
  // trpc-to-openapi documents every answer as JSON; binary routes say their real type.
  for (const route of buildRouteTable(router)) {
    if (!route.meta.responseType) continue;
    const op = (doc.paths as any)?.[route.path]?.[route.method.toLowerCase()];
    const ok = op?.responses?.['200'];
    if (ok?.content?.['application/json']) {
      ok.content = { [route.meta.responseType]: ok.content['application/json'] };
    }
  }
  return doc;
}

const escape = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type Schema = { type?: unknown; enum?: unknown[]; default?: unknown; description?: string; properties?: Record<string, Schema>; required?: string[] };

function schemaSummary(s: Schema | undefined): string {
  if (!s) return '';
  const parts = [s.type ? String(s.type) : ''];
  if (s.enum) parts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.filter(Boolean).join('; ');
}

/**
 * A human-readable API reference rendered on the server from the same document: no
 * JavaScript, no CDN, readable in any browser or with curl.
 */
export function renderReferencePage(doc: OpenAPIObject): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: Schema; description?: string }>;
      const bodySchema = (Object.values(op.requestBody?.content ?? {})[0] as { schema?: Schema } | undefined)?.schema;
      const bodyFields = Object.entries(bodySchema?.properties ?? {});
      const rows = [
        ...params.map((p) => [p.name, p.in, p.required ? 'yes' : 'no', schemaSummary(p.schema), p.description ?? '']),
        ...bodyFields.map(([name, s]) => [name, 'body', bodySchema?.required?.includes(name) ? 'yes' : 'no', schemaSummary(s), s.description ?? '']),
      ];
      sections.push(`<section id="${escape(op.operationId)}">
<h2><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h2>
${op.summary ? `<p>${escape(op.summary)}</p>` : ''}${op.description ? `<p>${escape(op.description)}</p>` : ''}
<p>Authentication: ${op.security?.length ? 'Bearer API key' : 'none (see the route notes)'}</p>
${rows.length ? `<table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th><th>Notes</th></tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>` : '<p>No parameters.</p>'}
<p>Responses: ${Object.keys(op.responses).map(escape).join(', ')}</p>
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} — API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
@media (prefers-color-scheme: dark){body{color:#e8e8e8;background:#141414}table,td,th{border-color:#444!important}}
code{font:14px ui-monospace,monospace}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5rem;font:600 13px ui-monospace,monospace}.get{color:#0a7}.post{color:#07c}.put{color:#a60}.delete{color:#c33}
section{border-top:1px solid #8884;padding-top:.5rem;margin-top:1.5rem}
</style></head><body>
<h1>${escape(doc.info.title)}</h1>
<p>${escape(doc.info.description)}</p>
<p>Version ${escape(doc.info.version)}. The machine-readable document is at <a href="/api/openapi.json"><code>/api/openapi.json</code></a>.
Errors come as <code>{"message", "status", "errors"?}</code>; siteverify answers in the Turnstile/reCAPTCHA shape.</p>
${sections.join('\n')}
</body></html>`;
}
