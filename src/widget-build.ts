import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants as zlib } from 'node:zlib';
import { build } from 'esbuild';

/** The browser widget, bundled once per process. */
export interface WidgetBundle {
  /** Minified JavaScript (an IIFE). */
  code: Buffer;
  /** The same, gzip-compressed at the highest level (served when the browser accepts it). */
  gzip: Buffer;
  /** Strong ETag of the content, quoted. */
  etag: string;
  /** 12 hex characters of the content hash: `/widget.js?v=<version>` may be cached for good. */
  version: string;
}

/** Entry point of the widget's TypeScript sources. */
export const WIDGET_ENTRY = fileURLToPath(new URL('./widget/index.ts', import.meta.url));
/** The proof-of-work worker's own entry; its bundle is embedded in widget.js (started from a Blob URL). */
export const WORKER_ENTRY = fileURLToPath(new URL('./widget/work-worker.ts', import.meta.url));

/** Browsers the bundle targets: evergreen ones from 2021 on (Worker, WebCrypto, shadow DOM). */
export const WIDGET_TARGET = ['chrome90', 'firefox90', 'safari15', 'edge90'];

let cached: Promise<WidgetBundle> | undefined;

/**
 * Bundles src/widget with esbuild's JS API, in memory, minified. The first call builds;
 * later calls share the result. A failed build is not cached, so a later call retries.
 */
export function widgetBundle(): Promise<WidgetBundle> {
  cached ??= bundle().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function bundle(): Promise<WidgetBundle> {
  const worker = await build({
    entryPoints: [WORKER_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: WIDGET_TARGET,
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const result = await build({
    define: { __AUDITCAPTCHA_WORK_WORKER__: JSON.stringify(worker.outputFiles[0]!.text) },
    entryPoints: [WIDGET_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: WIDGET_TARGET,
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const code = Buffer.from(result.outputFiles[0]!.contents);
  const hash = createHash('sha256').update(code).digest('hex');
  return {
    code,
    gzip: gzipSync(code, { level: zlib.Z_BEST_COMPRESSION }),
    etag: `"${hash.slice(0, 32)}"`,
    version: hash.slice(0, 12),
  };
}
