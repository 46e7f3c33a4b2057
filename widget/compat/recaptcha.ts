/**
 * /recaptcha/api.js and /recaptcha/enterprise.js: Google reCAPTCHA's client API
 * (`window.grecaptcha`, with `grecaptcha.enterprise` as the same verbs) over our engine.
 * v2: `.g-recaptcha` checkbox (our managed widget), `size: invisible` and bound buttons
 * (our invisible widget, run by `execute(id)` or a click). v3: `?render=<sitekey>` and
 * `grecaptcha.execute(sitekey, {action})`, a promise of a score token. The token goes into
 * the `g-recaptcha-response` textarea; `render` returns a number and takes an element id.
 */
import { providerNamed } from '../../shared/providers.ts';
import { ac, start } from './engine.ts';
import { classic } from './classic.ts';

const field = providerNamed('recaptcha').responseField;

const core = classic({
  cls: 'g-recaptcha',
  fields: (n) => [{ tag: 'textarea', name: field, id: n ? `${field}-${n}` : field }],
  errorArgs: () => [],
});

const api = {
  render: core.render,
  /** v3 with a sitekey: a promise of a token for `action`; v2 with a widget id (or none): runs it. */
  execute: (idOrSitekey?: unknown, options?: { action?: string }): Promise<string> | undefined => {
    if (typeof idOrSitekey === 'string' && !/^\d+$/.test(idOrSitekey))
      return ac.execute(idOrSitekey, { action: options?.action });
    const run = core.execute(idOrSitekey);
    run?.catch(() => {});
    return undefined;
  },
  reset: core.reset,
  getResponse: core.getResponse,
  ready: (fn: () => void) => ac.ready(fn),
};

declare global {
  interface Window {
    grecaptcha?: typeof api & { enterprise: typeof api };
  }
}

window.grecaptcha = { ...api, enterprise: api };
start(core.implicitRender);
