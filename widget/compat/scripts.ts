/**
 * The compatibility scripts: each served at its provider's path(s) (facade/widget.ts) and
 * bundled like widget.js from its entry in WIDGET_ENTRIES (widget/build.ts), which
 * `npm run build` builds ahead of start.
 */
export const COMPAT_SCRIPTS = [
  { name: 'turnstile', paths: ['/turnstile/v0/api.js'], bundle: 'turnstile.js' },
  { name: 'recaptcha', paths: ['/recaptcha/api.js', '/recaptcha/enterprise.js'], bundle: 'recaptcha.js' },
  { name: 'hcaptcha', paths: ['/1/api.js'], bundle: 'hcaptcha.js' },
] as const;
