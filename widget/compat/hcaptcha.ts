/**
 * /1/api.js: hCaptcha's client API (`window.hcaptcha`) over our engine, with the same
 * verbs and `.h-captcha` rendering as reCAPTCHA (see classic.ts). Like hCaptcha, it writes
 * the token into both `h-captcha-response` and `g-recaptcha-response`, and also answers as
 * `window.grecaptcha` unless the script URL says `recaptchacompat=off`.
 * `execute(id, {async: true})` resolves with `{response, key}`. Accepted and ignored:
 * `setData` (rqdata), `close`, open/close/chalexpired callbacks, tabindex, custom themes.
 */
import { providerNamed } from '../../shared/providers.ts';
import { ac, params, start } from './engine.ts';
import { classic } from './classic.ts';

/** Our error codes as hCaptcha names them. */
const errorCode = (code: string) =>
  code === 'network'
    ? 'network-error'
    : code === 'rate-limited'
      ? 'rate-limited'
      : code === 'forbidden'
        ? 'invalid-data'
        : 'challenge-error';

const core = classic({
  cls: 'h-captcha',
  // reCAPTCHA's field first, then its own, as hCaptcha writes them.
  fields: (n) =>
    [providerNamed('recaptcha').responseField, providerNamed('hcaptcha').responseField].map((name) => ({
      tag: 'textarea' as const,
      name,
      id: `${name}-${n}`,
    })),
  errorArgs: (code) => [errorCode(code)],
});

const hcaptcha = {
  render: (target: unknown, p?: Record<string, unknown>) => String(core.render(target, p)),
  /** Runs widget `id` (the first by default); with `{async: true}` a promise of `{response, key}`. */
  execute: (id?: unknown, options?: { async?: boolean }): Promise<{ response: string; key: string }> | undefined => {
    if (id && typeof id === 'object') [id, options] = [undefined, id];
    const run = core.execute(id);
    if (options?.async) {
      // hCaptcha rejects with its error code, a string; pages and wrappers compare it.
      /* eslint-disable @typescript-eslint/prefer-promise-reject-errors */
      if (!run) return Promise.reject('invalid-captcha-id');
      return run.then(
        (response) => ({ response, key: '' }),
        (err: unknown) => Promise.reject(errorCode((err as { code?: string } | undefined)?.code ?? '')),
      );
      /* eslint-enable @typescript-eslint/prefer-promise-reject-errors */
    }
    run?.catch(() => {});
    return undefined;
  },
  reset: core.reset,
  remove: core.remove,
  getResponse: core.getResponse,
  /** hCaptcha's response key (an Enterprise feature): always ''. */
  getRespKey: () => '',
  setData: () => {},
  close: () => {},
  ready: (fn: () => void) => ac.ready(fn),
};

declare global {
  interface Window {
    hcaptcha?: typeof hcaptcha;
  }
}

window.hcaptcha = hcaptcha;
if (params.get('recaptchacompat') !== 'off' && !window.grecaptcha) {
  const g = {
    render: core.render,
    execute: hcaptcha.execute,
    reset: core.reset,
    getResponse: core.getResponse,
    ready: hcaptcha.ready,
  };
  window.grecaptcha = { ...g, enterprise: g } as unknown as typeof window.grecaptcha;
}
start(core.implicitRender);
