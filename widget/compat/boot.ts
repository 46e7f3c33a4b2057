/**
 * What a compatibility script knows of itself: its own URL (its query carries `render`,
 * `onload`, `hl`, ...) and, beside it, the widget.js URL the engine talks to.
 */

import { PROVIDERS } from '../../shared/providers.ts';

const literal = (path: string) => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The providers' script paths, as served by this service (facade/widget.ts), at the URL path's end. */
const COMPAT_PATH = new RegExp(
  `(?:${PROVIDERS.flatMap((p) => p.scripts)
    .map(literal)
    .join('|')})$`,
);

const own = (document.currentScript ??
  [...document.scripts].reverse().find((s) => s.src && COMPAT_PATH.test(new URL(s.src).pathname))) as
  HTMLScriptElement | undefined;

/** This compatibility script's own URL. */
export const scriptUrl = new URL(own?.src || location.href);
export const params = scriptUrl.searchParams;

/** widget.js at this service, explicit rendering: the provider's script renders on its own terms. */
export const engineUrl = new URL(
  `${scriptUrl.origin}${scriptUrl.pathname.replace(COMPAT_PATH, '')}/widget.js?render=explicit`,
);
