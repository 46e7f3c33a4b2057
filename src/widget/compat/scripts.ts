import { fileURLToPath } from 'node:url';

/**
 * The compatibility scripts: each served at its provider's path(s) (facade/widget.ts) and
 * bundled by esbuild from its entry (src/widget-build.ts), like widget.js. One list, so a
 * build ahead of start bundles exactly what the server serves.
 */
export const COMPAT_SCRIPTS = [
  { name: 'turnstile', paths: ['/turnstile/v0/api.js'], entry: fileURLToPath(new URL('./turnstile.ts', import.meta.url)) },
  { name: 'recaptcha', paths: ['/recaptcha/api.js', '/recaptcha/enterprise.js'], entry: fileURLToPath(new URL('./recaptcha.ts', import.meta.url)) },
  { name: 'hcaptcha', paths: ['/1/api.js'], entry: fileURLToPath(new URL('./hcaptcha.ts', import.meta.url)) },
] as const;

export type CompatScript = (typeof COMPAT_SCRIPTS)[number];
