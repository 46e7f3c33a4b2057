/**
 * widget.js: the browser side of the challenge service. Sites embed
 *   <script src="https://captcha.example/widget.js" async defer></script>
 * and either mark a form element `data-sitekey="…"` (implicit rendering, unless the script
 * URL says `?render=explicit`) or call `window.auditcaptcha.render(element, options)`.
 * The service's address is taken from this script's own URL. No cookies, no third parties.
 */
import { install } from './install.ts';

/** This script's own element: `document.currentScript` while it runs, else found by its path. */
const script = (document.currentScript ??
  document.querySelector('script[src*="/widget.js"]')) as HTMLScriptElement | null;

if (!window.auditcaptcha) install(new URL(script?.src || location.href));
