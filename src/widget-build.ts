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

/** Browsers the bundle targets: evergreen ones from 2021 on (Worker, WebCrypto, shadow DOM). */
export const WIDGET_TARGET = ['chrome90', 'firefox90', 'safari15', 'edge90'];

const cached = new Map<string, Promise<WidgetBundle>>();

/**
 * Bundles src/widget with esbuild's JS API, in memory, minified. The first call builds;
 * later calls share the result. A failed build is not cached, so a later call retries.
 */
export function widgetBundle(): Promise<WidgetBundle> {
  return scriptBundle(WIDGET_ENTRY);
}

/** The same for another browser entry (the compatibility scripts, src/widget/compat/scripts.ts). */
export function scriptBundle(entry: string): Promise<WidgetBundle> {
  let b = cached.get(entry);
  if (!b) {
    b = bundle(entry).catch((err) => {
      cached.delete(entry);
      throw err;
    });
    cached.set(entry, b);
  }
  return b;
}

async function bundle(entry: string): Promise<WidgetBundle> {
  const result = await build({
    entryPoints: [entry],
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
