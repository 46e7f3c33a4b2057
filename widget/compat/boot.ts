/**
 * Runs before the engine (../index.ts) is evaluated in a compatibility bundle. The engine
 * learns the service's address from its own script URL and honours `?render=explicit`
 * (both documented for widget.js); a compatibility script is served at a provider's path
 * instead, so it presents the engine, for that one read, with the widget.js URL beside it.
 * The page's own `document.currentScript` is untouched afterwards.
 */

/** The providers' script paths, as served by this service (facade/widget.ts). */
const COMPAT_PATH = /\/(?:turnstile\/v0\/api|recaptcha\/(?:api|enterprise)|1\/api)\.js$/;

const own = (document.currentScript ??
  [...document.scripts].reverse().find((s) => s.src && COMPAT_PATH.test(new URL(s.src).pathname))) as
  HTMLScriptElement | undefined;

/** This compatibility script's own URL (its query carries `render`, `onload`, `hl`, ...). */
export const scriptUrl = new URL(own?.src || location.href);
export const params = scriptUrl.searchParams;

type Doc = { currentScript?: unknown };

if (!window.auditcaptcha) {
  const widgetJs = document.createElement('script');
  widgetJs.src = `${scriptUrl.origin}${scriptUrl.pathname.replace(COMPAT_PATH, '')}/widget.js?render=explicit`;
  Object.defineProperty(document, 'currentScript', {
    configurable: true,
    get() {
      delete (document as Doc).currentScript;
      return widgetJs;
    },
  });
}

/** Drops the one-read override if the engine did not read it (it was already installed). */
export function restore(): void {
  delete (document as Doc).currentScript;
}
