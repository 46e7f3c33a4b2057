/**
 * Siteverify at the providers' own paths, answering in each one's shape, so a server only
 * changes the host (and the keys). The verifier is the one in siteverify.ts; these only
 * rename and drop fields, as each provider's entry in shared/providers.ts says.
 *
 * - Ours (`/api/siteverify`, `/api/v1/siteverify`): the verdict as it is, reasons included.
 * - Turnstile (`/turnstile/v0/siteverify`): our shape (Turnstile's, plus `kind`, and `score`
 *   for every token that carries one), the reasons in Turnstile's `metadata` object.
 * - reCAPTCHA (`/recaptcha/api/siteverify`): no `cdata`, `kind` or reasons; `action` and `score` for v3 tokens only.
 * - hCaptcha (`/siteverify`): no `action`/`cdata`/`score`/`kind`/reasons; `credit: false`; a spent or
 *   expired token is `invalid-or-already-seen-response`.
 */
import { providerNamed, type ProviderName } from '../../shared/providers.ts';
import type { Verdict } from './siteverify.ts';

export type Protocol = 'native' | ProviderName;

export type ProtocolVerdict = Omit<Verdict, 'error-codes'> & {
  'error-codes': string[];
  credit?: boolean;
  metadata?: { reasons: string[] };
};

/** `verdict` as `protocol` answers it: the fields of the common shape in their order, then the provider's. */
export function inProtocol(verdict: Verdict, protocol: Protocol): ProtocolVerdict {
  if (protocol === 'native') return verdict;
  const shape = providerNamed(protocol).answer;
  const { action, cdata, score, kind, reasons, ...rest } = verdict;
  const ours = { action, cdata, score, kind };
  const answered: ProtocolVerdict = { ...rest };
  if (shape.keepsFor !== 'v3' || (kind === 'v3' && score !== undefined)) {
    for (const field of shape.keeps) if (ours[field] !== undefined) Object.assign(answered, { [field]: ours[field] });
  }
  if (shape.reasons === 'metadata' && reasons) answered.metadata = { reasons };
  if (verdict.success && shape.onSuccess) Object.assign(answered, shape.onSuccess);
  const renamed = shape.errorCodes;
  if (renamed) answered['error-codes'] = verdict['error-codes'].map((c) => renamed[c] ?? c);
  return answered;
}
