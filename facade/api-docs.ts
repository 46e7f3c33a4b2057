/**
 * The API reference at /api/docs: Swagger UI (swagger-ui-dist, served from node_modules by
 * us, no third-party host) reading /api/openapi.json, with "Authorize" for an API key and
 * "Try it out" on every operation. The page and its initializer are ours; the viewer's
 * script and stylesheet are the package's files as published. Strict CSP: scripts and
 * styles from this origin only, requests to this origin only, no framing.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback, constants as zlibConstants } from 'node:zlib';
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

const gzip = promisify(gzipCallback);

/** The CSP of the page and its assets: nothing from elsewhere, no inline script or style, no eval. */
export const apiDocsCsp =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const require = createRequire(import.meta.url);
/** The package's folder, found on the first request (nothing is resolved at start). */
const distDir = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The initializer: the viewer on our document, with the API key kept only for the tab's life. */
const initializer = `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;

const page = (viewerVersion: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/docs/swagger-ui.css?v=${viewerVersion}">
</head><body>
<noscript><p>The interactive reference needs JavaScript. The OpenAPI document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js?v=${viewerVersion}"></script>
<script src="/api/docs/init.js?v=${viewerVersion}"></script>
</body></html>`;

/** The viewer's version, in asset addresses so they can be cached for good. */
const version = (): string => (require('swagger-ui-dist/package.json') as { version: string }).version;

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

async function asset(type: string, body: Buffer): Promise<Asset> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { type, body, gzip: await gzip(body, { level: zlibConstants.Z_BEST_COMPRESSION }), etag };
}

/** The files served, each loaded and compressed on its first request. */
const sources: Record<string, () => Promise<Asset>> = {
  '/api/docs/swagger-ui-bundle.js': async () =>
    asset('application/javascript; charset=utf-8', await readFile(path.join(distDir(), 'swagger-ui-bundle.js'))),
  '/api/docs/swagger-ui.css': async () =>
    asset('text/css; charset=utf-8', await readFile(path.join(distDir(), 'swagger-ui.css'))),
  '/api/docs/init.js': () => asset('application/javascript; charset=utf-8', Buffer.from(initializer)),
  '/api/docs': () => asset('text/html; charset=utf-8', Buffer.from(page(version()))),
};

function secure(ctx: Context): void {
  ctx.set('Content-Security-Policy', apiDocsCsp);
  ctx.set('Referrer-Policy', 'no-referrer');
}

function send(ctx: Context, a: Asset, cache: string): void {
  const gz = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.vary('Accept-Encoding');
  secure(ctx);
  ctx.set('Cache-Control', cache);
  ctx.etag = gz ? `${a.etag.slice(0, -1)}-gz"` : a.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = a.type;
  if (gz) ctx.set('Content-Encoding', 'gzip');
  ctx.body = gz ? a.gzip : a.body;
}

/** GET /api/docs and its assets. */
export function apiDocsRouter(): Router {
  const loaded = new Map<string, Promise<Asset>>();
  const load = (p: string): Promise<Asset> => {
    let pending = loaded.get(p);
    if (!pending) {
      pending = sources[p]().catch((err: unknown) => {
        loaded.delete(p);
        throw err;
      });
      loaded.set(p, pending);
    }
    return pending;
  };
  const r = new Router();
  for (const p of Object.keys(sources)) {
    r.get(p, async (ctx) => {
      const versioned = p !== '/api/docs' && ctx.query.v === version();
      const cache = p === '/api/docs' ? 'no-cache' : versioned ? 'public, max-age=31536000, immutable' : 'no-cache';
      send(ctx, await load(p), cache);
    });
  }
  return r;
}
