/**
 * Siteverify at the providers' own paths, answering in each one's shape, so a server only
 * changes the host (and the keys). The verifier is the one in siteverify.ts; these only
 * rename and drop fields.
 *
 * - Turnstile (`/turnstile/v0/siteverify`): our shape as it is (Turnstile's, plus `kind`, and
 *   `score` for every token that carries one).
 * - reCAPTCHA (`/recaptcha/api/siteverify`): no `cdata` or `kind`; `action` and `score` for v3 tokens only.
 * - hCaptcha (`/siteverify`): no `action`/`cdata`/`score`/`kind`; `credit: false`; a spent or
 *   expired token is `invalid-or-already-seen-response`.
 */
import type { Verdict } from './siteverify.ts';

export type Protocol = 'turnstile' | 'recaptcha' | 'hcaptcha';

export type ProtocolVerdict = Omit<Verdict, 'error-codes'> & { 'error-codes': string[]; credit?: boolean };

export function inProtocol(verdict: Verdict, protocol: Protocol): ProtocolVerdict {
  if (protocol === 'turnstile') return verdict;
  const { action, cdata, score, kind, ...rest } = verdict;
  void cdata;
  if (protocol === 'recaptcha') return kind === 'v3' && score !== undefined ? { ...rest, score, action } : rest;
  const codes = verdict['error-codes'].map((c) =>
    c === 'timeout-or-duplicate' ? 'invalid-or-already-seen-response' : c,
  );
  return { ...rest, ...(verdict.success ? { credit: false } : {}), 'error-codes': codes };
}
