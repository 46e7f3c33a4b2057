/**
 * The one place the server gets its browser bundles from (widget.js, its worker, the drop-in
 * scripts, the console). The compiled service (`npm start`) reads the files `npm run build`
 * wrote to dist/public/ and never loads a bundler; under tsx (`npm run dev`, tests) the same
 * entries are bundled in memory with esbuild, so no prior build is needed and both serve the
 * same bytes. esbuild reads widget/ and console/ as files: the server imports none of their
 * modules (.dependency-cruiser.cjs, server-not-to-widget-sources).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants as zlib } from 'node:zlib';
import type { Plugin } from 'esbuild';
import { compileWat } from '../pow/compile.ts';
import { PROBE_FONT_BASE64 } from '../shared/probe-font.ts';
import { PROVIDERS, providerBundle } from '../shared/providers.ts';

/** A browser bundle, built once per process (or ahead, by `npm run build`). */
export interface WidgetBundle {
  /** Minified JavaScript. */
  code: Buffer;
  /** The same, gzip-compressed at the highest level (served when the browser accepts it). */
  gzip: Buffer;
  /** Strong ETag of the content, quoted. */
  etag: string;
  /** 12 hex characters of the content hash: `/widget.js?v=<version>` may be cached for good. */
  version: string;
}

/** One browser bundle: its output name and its TypeScript entry (relative to this file). */
export interface WidgetEntry {
  /** File name of the built bundle, e.g. `widget.js`. */
  name: string;
  /** Entry point, relative to this module (`../widget/index.ts`). */
  source: string;
  /** `css`: a stylesheet entry (its @imports bundled). */
  format: 'iife' | 'esm' | 'css';
}

/**
 * Every browser bundle the service serves. `npm run build` (scripts/build.ts) builds each of
 * them into dist/public/ ahead of time; a new bundle is one more line here.
 */
export const WIDGET_ENTRIES: WidgetEntry[] = [
  { name: 'widget.js', source: '../widget/index.ts', format: 'iife' },
  // The proof-of-work Web Worker, fetched by the widget and started from a Blob URL (widget/work.ts).
  { name: 'widget-worker.js', source: '../widget/work-worker.ts', format: 'iife' },
  // The layout measurement alone, for the service's own Chromium (src/captcha/engine-reference.ts).
  { name: 'env-probes.js', source: '../widget/env-probes-entry.ts', format: 'iife' },
  // The providers' drop-in scripts, one per entry of PROVIDERS (shared/providers.ts).
  ...PROVIDERS.map((p) => ({
    name: providerBundle(p),
    source: `../widget/compat/${p.name}.ts`,
    format: 'iife' as const,
  })),
  // The operators' console (console/, served at /console by facade/console.ts): Preact and uPlot.
  { name: 'console.js', source: '../console/main.tsx', format: 'esm' },
  { name: 'console.css', source: '../console/console.css', format: 'css' },
];

/** Where the service serves the environment proof's font (facade/widget.ts); the widget fetches it there. */
export { PROBE_FONT_PATH } from '../shared/probe-font-path.ts';

/** The environment proof's font as the service serves it. */
export function probeFontBytes(): Buffer {
  return Buffer.from(PROBE_FONT_BASE64, 'base64');
}

/** Entry point of the widget's TypeScript sources. */
export const WIDGET_ENTRY = fileURLToPath(new URL('../widget/index.ts', import.meta.url));

/** Browsers the bundle targets: evergreen ones from 2021 on (Worker, WebCrypto, shadow DOM). */
export const WIDGET_TARGET = ['chrome90', 'firefox90', 'safari15', 'edge90'];

/**
 * Where `npm run build` writes the bundles: dist/public/, beside the compiled dist/src/.
 * Only the compiled service reads from there; under tsx the sources are bundled in memory.
 */
export const PREBUILT_DIR = new URL('../public/', import.meta.url);
const compiled = import.meta.url.endsWith('.js');

const cached = new Map<string, Promise<WidgetBundle>>();

/** The browser widget (widget.js). */
export function widgetBundle(): Promise<WidgetBundle> {
  return bundleNamed('widget.js');
}

/**
 * The bundle `name` of WIDGET_ENTRIES. The compiled service reads the file built ahead
 * (no bundler in the serving process); under tsx the first call bundles the sources with
 * esbuild in memory. Later calls share the result; a failed build is not cached.
 */
export function bundleNamed(name: string): Promise<WidgetBundle> {
  let pending = cached.get(name);
  if (!pending) {
    pending = load(name).catch((err) => {
      cached.delete(name);
      throw err;
    });
    cached.set(name, pending);
  }
  return pending;
}

async function load(name: string): Promise<WidgetBundle> {
  const entry = WIDGET_ENTRIES.find((e) => e.name === name);
  if (!entry) throw new Error(`no widget bundle named ${name}`);
  const prebuilt = new URL(name, PREBUILT_DIR);
  if (compiled) {
    if (!existsSync(prebuilt)) throw new Error(`${fileURLToPath(prebuilt)} is missing: run npm run build`);
    return describe(readFileSync(prebuilt));
  }
  return describe(await buildWidgetEntry(entry));
}

/** Bundles one entry with esbuild's JS API, in memory, minified (dev, tests and the build). */
export async function buildWidgetEntry(entry: WidgetEntry): Promise<Buffer> {
  // Loaded only here: the compiled service never imports the bundler.
  const { build } = await import('esbuild');
  const options = {
    bundle: true,
    minify: true,
    platform: 'browser',
    target: WIDGET_TARGET,
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    // The console's JSX (Preact's automatic runtime); the widget has none.
    jsx: 'automatic',
    jsxImportSource: 'preact',
  } as const;
  const result = await build({
    ...options,
    entryPoints: [fileURLToPath(new URL(entry.source, import.meta.url))],
    ...(entry.format === 'css' ? {} : { format: entry.format }),
    plugins: [watPlugin],
  });
  return Buffer.from(result.outputFiles[0].contents);
}

/** `import bytes from './x.wat'`: the module's binary, compiled by wabt, inlined as a Uint8Array. */
const watPlugin: Plugin = {
  name: 'wat',
  setup(b) {
    b.onLoad({ filter: /\.wat$/ }, async (args) => ({ contents: await compileWat(args.path), loader: 'binary' }));
  },
};

function describe(code: Buffer): WidgetBundle {
  const hash = createHash('sha256').update(code).digest('hex');
  return {
    code,
    gzip: gzipSync(code, { level: zlib.Z_BEST_COMPRESSION }),
    etag: `"${hash.slice(0, 32)}"`,
    version: hash.slice(0, 12),
  };
}
