import { AppError, notFound } from '../errors.ts';
import {
  admit,
  countIssued,
  guardStore,
  issueToken,
  observeRequest,
  redeemProof,
  type AdmittedSite,
  type BrowserRequest,
  type CaptchaDeps,
  type IssuedToken,
} from './context.ts';
import { checkEnv, sealValues, type ProbeBox } from './env-proof.ts';
import {
  packEvidence,
  recordFailure,
  recordRedeemed,
  unpackEvidence,
  workSize,
  type Evidence,
  type Telemetry,
} from './evidence.ts';
import { DIRECT_CHALLENGE_THRESHOLD, PASS_THRESHOLD, scoreEvidence } from './risk.ts';
import { createV1, type V1View } from './v1.ts';
import { testPassScore } from './test-keys.ts';
import { attestedFor } from './private-token.ts';
import { issueWork, openTicket, refusalOf, type WorkFailure, type WorkPurpose, type WorkView } from './work.ts';

export type { Telemetry } from './evidence.ts';

/** Work plus the environment proof's paragraph the widget measures in the page (null: no engine to take its values). */
export type WorkChallenge = WorkView & { env: { probe: ProbeBox | null }; private_token: boolean };

/** What the client sends back for a work challenge. */
export interface WorkProof {
  work?: string;
  solutions?: string;
  env?: string;
}

/** Issues work of the evidence's size, with a layout for the environment proof (its values sealed in the ticket). */
export async function issueChallenge(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  purpose: WorkPurpose,
  evidence: Evidence,
  opts: { bind?: string; telemetry?: Telemetry; action: string | null; cdata: string | null; extraBits?: number },
): Promise<WorkChallenge> {
  const size = workSize(admitted.site.level, admitted.site.minWorkBits, evidence, opts.telemetry);
  const reference = await deps.reference?.take();
  const view = issueWork(deps.tokenKey, {
    site: admitted.site.sitekey,
    purpose,
    bind: opts.bind ?? '',
    size: { count: size.count, bits: size.bits + (opts.extraBits ?? 0) },
    now: deps.now(),
    evidence: packEvidence(evidence),
    action: opts.action,
    cdata: opts.cdata,
    env: reference ? sealValues(deps.tokenKey, reference.values) : null,
  });
  if (purpose === 'v2' || purpose === 'v3') countIssued(deps, admitted, purpose, view.bits);
  return { ...view, env: { probe: reference?.probe ?? null }, private_token: deps.privateTokens === true };
}

export type ManagedOutcome =
  | ({ outcome: 'pass' } & IssuedToken)
  | { outcome: 'pow'; challenge: string; work: WorkChallenge; expires_at: string }
  | { outcome: 'challenge'; challenge: V1View };

export interface ManagedInput {
  sitekey: string;
  action?: string | null;
  cdata?: string | null;
  telemetry?: Telemetry;
}

/**
 * v2: the server decides from what it observed. The always-pass test key passes at once;
 * the other test keys get the image. Otherwise: evidence so bad that even a right
 * environment proof and the work would not pass gets the image (with its own work) at once;
 * anything else gets invisible work sized by the evidence, which {@link verifyManaged} turns
 * into a token or the image.
 */
export async function startManaged(
  deps: CaptchaDeps,
  input: ManagedInput,
  req: BrowserRequest,
): Promise<ManagedOutcome> {
  const admitted = await admit(deps, input.sitekey, req);
  const action = input.action ?? null;
  const cdata = input.cdata ?? null;
  if (admitted.test === 'pass') {
    const score = testPassScore(admitted.site.sitekey);
    return { outcome: 'pass', ...issueToken(deps, admitted, { kind: 'v2', action, cdata, score }) };
  }
  if (admitted.test) return { outcome: 'challenge', challenge: await createV1(deps, admitted, { action, cdata }) };
  const evidence = await observeRequest(deps, admitted, req, input.telemetry);
  const best = scoreEvidence({
    evidence,
    // Telemetry comes again with the proof; its absence here costs nothing yet.
    telemetry: input.telemetry ?? {},
    pageOptional: true,
    request: req,
    envOk: true,
    work: { size: { count: 1, bits: 1 }, elapsedMs: 60_000 },
  });
  if (best.score < DIRECT_CHALLENGE_THRESHOLD) {
    return { outcome: 'challenge', challenge: await createV1(deps, admitted, { action, cdata, evidence }) };
  }
  const work = await issueChallenge(deps, admitted, 'v2', evidence, { telemetry: input.telemetry, action, cdata });
  return { outcome: 'pow', challenge: work.id, work, expires_at: work.expires_at };
}

export type PowVerdict =
  | ({ success: true } & IssuedToken)
  | { success: false; error: 'invalid-proof'; attempts_left: number }
  | { success: false; error: 'challenge-required'; challenge: V1View };

/** Refusal of a proof as a 404 (gone: expired or spent) or a verdict the widget can act on. */
function refuse(reason: WorkFailure): never {
  if (reason === 'expired' || reason === 'replayed') throw notFound('Challenge');
  throw new AppError('ERR_VALIDATION', 'The proof of work does not answer this challenge.', {
    errors: { work: [`The proof was refused (${reason}).`] },
  });
}

/**
 * Checks the work and the environment answer of a v2 challenge. The proof is spent (exactly
 * once). The score from evidence decides: at or above {@link PASS_THRESHOLD} a v2 token
 * ("passed after the invisible work"), below it an image challenge that needs no more work.
 */
export async function verifyManaged(
  deps: CaptchaDeps,
  id: string,
  proof: WorkProof & { telemetry?: Telemetry },
  req: BrowserRequest,
): Promise<PowVerdict> {
  const now = deps.now();
  const opened = await openProof(deps, proof, req, ['v2']);
  if (opened.claims.id !== id) throw notFound('Challenge');
  const { admitted, claims } = opened;
  const checked = await redeemProof(deps, proof, { site: claims.site, purposes: ['v2'], bind: '', now });
  if (!checked.ok) {
    deps.events?.record(claims.site, 'refused', refusalOf(checked.reason));
    if (checked.reason === 'bad-solution') {
      await guardStore(recordFailure(deps.stores, claims.site, req));
      return { success: false, error: 'invalid-proof', attempts_left: 0 };
    }
    refuse(checked.reason);
  }
  await guardStore(recordRedeemed(deps.stores, claims.site, req));
  const envOk = checkEnv(deps.tokenKey, claims.env, proof.env);
  const { score, reasons } = scoreEvidence({
    evidence: unpackEvidence(claims.ev),
    telemetry: proof.telemetry,
    request: req,
    envOk,
    work: { size: claims, elapsedMs: checked.elapsedMs },
    attested: await attestedFor(deps, claims.id, claims.site),
  });
  if (score >= PASS_THRESHOLD) {
    return {
      success: true,
      ...issueToken(deps, admitted, { kind: 'v2', action: claims.action, cdata: claims.cdata, score, reasons }),
    };
  }
  // The image's no-image path is priced from this request's evidence, like any challenge.
  const challenge = await createV1(
    deps,
    admitted,
    { action: claims.action, cdata: claims.cdata, score, reasons, engine: envOk, workDone: true },
    req,
  );
  return { success: false, error: 'challenge-required', challenge };
}

/** Opens a proof's ticket and admits the request for its site (origin rule). */
async function openProof(deps: CaptchaDeps, proof: WorkProof, req: BrowserRequest, purposes: readonly WorkPurpose[]) {
  const opened = openTicket(deps.tokenKey, proof.work);
  if (!opened.ok) refuse(opened.reason);
  if (!purposes.includes(opened.claims.purpose)) refuse('wrong-purpose');
  return { claims: opened.claims, admitted: await admit(deps, opened.claims.site, req) };
}

export interface ScoreInput extends WorkProof {
  sitekey: string;
  action: string;
  cdata?: string | null;
  telemetry?: Telemetry;
}

export type ScoreOutcome = IssuedToken | { challenge: WorkChallenge };

/**
 * v3, two steps on one route. Without `work`: a work challenge (with its environment
 * program) sized by the evidence; no token. With a solved proof for this sitekey and action:
 * an opaque token whose score, computed from the evidence (risk.ts), only siteverify reveals.
 * Test sitekeys answer a token at once (0.9 always-pass, 0.0 otherwise).
 */
export async function issueScoreToken(
  deps: CaptchaDeps,
  input: ScoreInput,
  req: BrowserRequest,
): Promise<ScoreOutcome> {
  const admitted = await admit(deps, input.sitekey, req);
  const cdata = input.cdata ?? null;
  if (admitted.test) {
    return issueToken(deps, admitted, {
      kind: 'v3',
      action: input.action,
      cdata,
      score: admitted.test === 'pass' ? testPassScore(admitted.site.sitekey) : 0,
    });
  }
  const now = deps.now();
  if (input.work === undefined) {
    const evidence = await observeRequest(deps, admitted, req, input.telemetry);
    return {
      challenge: await issueChallenge(deps, admitted, 'v3', evidence, {
        telemetry: input.telemetry,
        action: input.action,
        cdata,
      }),
    };
  }
  const checked = await redeemProof(deps, input, {
    site: admitted.site.sitekey,
    purposes: ['v3'],
    bind: '',
    now,
    action: input.action,
    cdata,
  });
  if (!checked.ok) {
    deps.events?.record(admitted.site.sitekey, 'refused', refusalOf(checked.reason));
    if (checked.reason === 'bad-solution') await guardStore(recordFailure(deps.stores, admitted.site.sitekey, req));
    refuse(checked.reason);
  }
  const claims = checked.claims;
  await guardStore(recordRedeemed(deps.stores, admitted.site.sitekey, req));
  const { score, reasons } = scoreEvidence({
    evidence: unpackEvidence(claims.ev),
    telemetry: input.telemetry,
    request: req,
    envOk: checkEnv(deps.tokenKey, claims.env, input.env),
    work: { size: claims, elapsedMs: checked.elapsedMs },
    attested: await attestedFor(deps, claims.id, claims.site),
  });
  return issueToken(deps, admitted, { kind: 'v3', action: input.action, cdata, score, reasons });
}
