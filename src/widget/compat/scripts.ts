/**
 * The compatibility scripts: each served at its provider's path(s) (facade/widget.ts) and
 * bundled from its entry like widget.js (src/widget-build.ts lists them among WIDGET_ENTRIES,
 * so `npm run build` bundles exactly what the server serves).
 */
export const COMPAT_SCRIPTS = [
  {
    name: 'turnstile',
    file: 'compat-turnstile.js',
    source: './widget/compat/turnstile.ts',
    paths: ['/turnstile/v0/api.js'],
  },
  {
    name: 'recaptcha',
    file: 'compat-recaptcha.js',
    source: './widget/compat/recaptcha.ts',
    paths: ['/recaptcha/api.js', '/recaptcha/enterprise.js'],
  },
  { name: 'hcaptcha', file: 'compat-hcaptcha.js', source: './widget/compat/hcaptcha.ts', paths: ['/1/api.js'] },
] as const;

export type CompatScript = (typeof COMPAT_SCRIPTS)[number];
