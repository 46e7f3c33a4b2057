import { createHmac, randomBytes } from 'node:crypto';
import { AppError, notFound, validationError } from '../errors.ts';
import { deriveAnswer, sameAnswer } from './answer.ts';
import { subkey } from './subkeys.ts';
import {
  admit,
  observeRequest,
  countIssued,
  guardStore,
  redeemProof,
  issueToken,
  type AdmittedSite,
  type BrowserRequest,
  type CaptchaDeps,
  type IssuedToken,
} from './context.ts';
import type { RefusalReason } from '../analytics/counter.ts';
import { createRng, renderChallenge } from './render.ts';
import { TEST_ANSWER } from './test-keys.ts';
import {
  NO_IMAGE_EXTRA_BITS,
  packEvidence,
  recordFailure,
  recordRedeemed,
  unpackEvidence,
  workSize,
  type Evidence,
  type Telemetry,
} from './evidence.ts';
import { issueWork, refusalOf, type WorkView } from './work.ts';
import { imageMayLift, scoreEvidence } from './risk.ts';
import { attestedFor } from './private-token.ts';
import { checkEnv, sealValues, type ProbeBox } from './env-proof.ts';

/** How long a challenge lives, how many answers and new images it allows. */
export const V1_LIMITS = { ttlMs: 10 * 60_000, attempts: 3, regenerations: 5 } as const;

/**
 * v1 state in the challenge store. No answer is kept: it is derived from the challenge id
 * and `regenerations` under a TOKEN_KEY subkey ({@link currentAnswer}).
 */
export interface V1State {
  kind: 'v1';
  site: string;
  hostname: string;
  attempts: number;
  regenerations: number;
  expiresAt: number;
  action: string | null;
  cdata: string | null;
  /** Score carried into the token when the managed flow escalated here. */
  score: number | null;
  /** The managed flow's reasons, and whether its environment proof was right, when it escalated here. */
  reasons?: string[];
  engine?: boolean;
  /** The environment proof's paragraph and its sealed values (null: escalated, exempt or no engine). */
  probe?: ProbeBox | null;
  env?: string | null;
  /** What the server saw when the challenge was created (evidence.ts packEvidence), for the score. */
  ev?: number[];
  /** The test sitekey `block` never lets a challenge be solved. */
  unsolvable: boolean;
  /** The managed flow's work was already done (it escalated here): answers need no more. */
  workDone: boolean;
  /** Test sitekeys keep their fixed behaviour: no work. */
  exempt: boolean;
  /** Work size for each answer, and for the no-image path (bits + NO_IMAGE_EXTRA_BITS). */
  count: number;
  bits: number;
}

export interface V1View {
  challenge: string;
  kind: 'v1';
  asset_url: string;
  expires_at: string;
  attempts_left: number;
  regenerations_left: number;
  /**
   * Proof of work the next answer must carry (null when the managed flow's work already
   * counts, and for test sitekeys).
   */
  work: WorkView | null;
  /**
   * The way through without the image: a longer proof of work (8× the image path's), sent
   * with `no_image: true` instead of an answer. Null for test sitekeys.
   */
  no_image: WorkView | null;
  /** The environment proof the answer carries: a paragraph to measure in the page (env-proof.ts). */
  env: { probe: ProbeBox } | null;
  /** The service asks Private Access Tokens: the widget fetches this challenge's private-token route once. */
  private_token: boolean;
}

/**
 * The answer of challenge `id`'s current image: the test sitekeys' fixed one, else derived
 * from the id and the number of regenerations. Storing no answer keeps v1 state small (a live
 * challenge is held ten minutes, and floods create many) and spares each challenge a keyed
 * hash and an encryption.
 */
export function currentAnswer(tokenKey: Buffer, id: string, s: V1State): string {
  if (s.exempt) return TEST_ANSWER;
  return deriveAnswer(subkey(tokenKey, 'answer-derive'), id, s.regenerations);
}

/** Whether `given` answers the state's current image (constant-time comparisons). */
function answers(deps: CaptchaDeps, id: string, s: V1State, given: string): boolean {
  return sameAnswer(currentAnswer(deps.tokenKey, id, s), given);
}

function view(deps: CaptchaDeps, id: string, s: V1State): V1View {
  const ticket = (purpose: 'v1' | 'v1-no-image', extra: number) =>
    issueWork(deps.tokenKey, {
      site: s.site,
      purpose,
      bind: id,
      size: { count: s.count, bits: s.bits + extra },
      now: deps.now(),
    });
  return {
    challenge: id,
    kind: 'v1',
    asset_url: `/api/v1/challenges/${id}/asset?v=${s.regenerations}`,
    expires_at: new Date(s.expiresAt).toISOString(),
    attempts_left: Math.max(0, V1_LIMITS.attempts - s.attempts),
    regenerations_left: Math.max(0, V1_LIMITS.regenerations - s.regenerations),
    work: s.exempt || s.workDone ? null : ticket('v1', 0),
    no_image: s.exempt ? null : ticket('v1-no-image', NO_IMAGE_EXTRA_BITS),
    env: s.probe ? { probe: s.probe } : null,
    private_token: !s.exempt && deps.privateTokens === true,
  };
}

/** Creates an image challenge for an admitted site. */
export async function createV1(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  opts: {
    action?: string | null;
    cdata?: string | null;
    score?: number | null;
    reasons?: string[];
    engine?: boolean;
    workDone?: boolean;
    evidence?: Evidence;
  } = {},
  req?: BrowserRequest,
): Promise<V1View> {
  const id = randomBytes(16).toString('base64url');
  const evidence = opts.evidence ?? (!admitted.test && req ? await observeRequest(deps, admitted, req) : undefined);
  const size = evidence
    ? workSize(admitted.site.level, admitted.site.minWorkBits, evidence)
    : workSize(admitted.site.level, admitted.site.minWorkBits, idle);
  // The managed flow judged the environment already; otherwise this challenge carries its own proof.
  const reference = admitted.test || opts.workDone ? undefined : await deps.reference?.take();
  const state: V1State = {
    kind: 'v1',
    site: admitted.site.sitekey,
    hostname: admitted.hostname,
    attempts: 0,
    regenerations: 0,
    expiresAt: deps.now() + V1_LIMITS.ttlMs,
    action: opts.action ?? null,
    cdata: opts.cdata ?? null,
    score: opts.score ?? null,
    ...(opts.reasons ? { reasons: opts.reasons, engine: opts.engine ?? false } : {}),
    probe: reference?.probe ?? null,
    env: reference ? sealValues(deps.tokenKey, reference.values) : null,
    ev: packEvidence(evidence ?? idle),
    unsolvable: admitted.test === 'block',
    workDone: opts.workDone ?? false,
    exempt: admitted.test !== null,
    count: size.count,
    bits: size.bits,
  };
  await guardStore(deps.stores.challenges.create(id, state, V1_LIMITS.ttlMs));
  countIssued(deps, admitted, 'v1', size.bits);
  return view(deps, id, state);
}

/** Loads a live v1 challenge and checks the request's origin against its site. */
async function load(
  deps: CaptchaDeps,
  id: string,
  req: BrowserRequest,
): Promise<{ state: V1State; admitted: AdmittedSite }> {
  const state = (await guardStore(deps.stores.challenges.get(id))) as V1State | null;
  if (!state || state.kind !== 'v1' || state.expiresAt <= deps.now()) throw notFound('Challenge');
  return { state, admitted: await admit(deps, state.site, req) };
}

/** Evidence of a request nothing is known about (the managed flow's escalation passes its own). */
const idle: Evidence = {
  clientRate: 1,
  networkRate: 1,
  wideRate: 1,
  siteRate: 1,
  siteBaseline: 1,
  failures: 0,
  abandoned: 0,
  uaMissing: false,
  uaAutomation: false,
  uaHeadless: false,
  acceptLanguageMissing: false,
  refererMismatch: false,
};

/**
 * The challenge image (PNG) of the current answer. One rendering per answer: the distortion
 * is seeded under the key from the challenge and its regeneration, so every GET of the same
 * answer gets the same bytes and readings cannot be combined; a regeneration (new answer)
 * draws anew.
 */
export async function renderV1Asset(deps: CaptchaDeps, id: string, req: BrowserRequest): Promise<Buffer> {
  const { state } = await load(deps, id, req);
  const seed = createHmac('sha256', deps.tokenKey)
    .update(`auditcaptcha/v1-render:${id}:${state.regenerations}`)
    .digest()
    .subarray(0, 16);
  return renderChallenge(currentAnswer(deps.tokenKey, id, state), { rng: createRng(seed) });
}

/** What a v1 answer carries besides the answer: the proof of `work` (or of `no_image`), the environment answer, telemetry. */
export interface V1Proof {
  answer?: string;
  no_image?: boolean;
  work?: string;
  solutions?: string;
  env?: string;
  telemetry?: Telemetry;
}

export type V1Verdict =
  | ({ success: true } & IssuedToken)
  | {
      success: false;
      error: 'wrong-answer' | 'challenge-spent' | 'invalid-proof';
      attempts_left: number;
      work?: WorkView | null;
    };

/**
 * Checks an answer, or the no-image path. Every answer needs its proof of work first (unless
 * the managed flow's work already counts): a missing, forged, replayed or foreign proof is
 * `invalid-proof` and costs no attempt, so answers cannot be probed for free. The attempt is
 * then counted atomically before the answer is compared; a right answer seals the token
 * before it spends the challenge (delete exactly once), so no failure of ours loses it. A
 * wrong answer comes back with the work the next answer needs.
 */
export async function verifyV1(deps: CaptchaDeps, id: string, proof: V1Proof, req: BrowserRequest): Promise<V1Verdict> {
  const { state, admitted } = await load(deps, id, req);
  const now = deps.now();
  const left = () => Math.max(0, V1_LIMITS.attempts - state.attempts);
  const noImage = proof.no_image === true;
  if (!noImage && typeof proof.answer !== 'string') {
    throw new AppError('ERR_VALIDATION', 'An answer is required.', {
      errors: { answer: ['An answer, or no_image, is required.'] },
    });
  }
  const refused = (reason: RefusalReason) => {
    if (!state.exempt) deps.events?.record(state.site, 'refused', reason);
  };
  if (noImage && state.exempt) return { success: false, error: 'invalid-proof', attempts_left: left() };
  let elapsedMs: number | undefined;
  if (noImage || !(state.workDone || state.exempt)) {
    const checked = await redeemProof(deps, proof, {
      site: state.site,
      purposes: [noImage ? 'v1-no-image' : 'v1'],
      bind: id,
      now,
    });
    if (!checked.ok) {
      refused(refusalOf(checked.reason));
      await guardStore(recordFailure(deps.stores, state.site, req));
      return { success: false, error: 'invalid-proof', attempts_left: left(), ...nextWork(deps, id, state) };
    }
    await guardStore(recordRedeemed(deps.stores, state.site, req));
    elapsedMs = checked.elapsedMs;
  }
  const attested = await attestedFor(deps, id, state.site);
  const scored = (s: V1State, imageAnswer: boolean) =>
    v1Score(deps, s, proof, { imageAnswer, noImage, elapsedMs, attested, request: req });
  if (noImage) return finish(deps, id, state, admitted, scored(state, false));
  // A challenge with no attempts left is deleted here rather than counted again.
  const counted = (await guardStore(
    deps.stores.challenges.update(id, (s: V1State) =>
      s.attempts >= V1_LIMITS.attempts ? null : { ...s, attempts: s.attempts + 1 },
    ),
  )) as V1State | null;
  if (!counted) {
    refused('duplicate');
    return { success: false, error: 'challenge-spent', attempts_left: 0 };
  }
  const right = !counted.unsolvable && answers(deps, id, counted, proof.answer!);
  if (right) return finish(deps, id, counted, admitted, scored(counted, true));
  refused('wrong_answer');
  if (!counted.exempt) await guardStore(recordFailure(deps.stores, state.site, req));
  const remaining = V1_LIMITS.attempts - counted.attempts;
  if (remaining <= 0) {
    await guardStore(deps.stores.challenges.delete(id));
    return { success: false, error: 'challenge-spent', attempts_left: 0 };
  }
  return { success: false, error: 'wrong-answer', attempts_left: remaining, ...nextWork(deps, id, counted) };
}

/** The work the next answer needs, when it needs any. */
function nextWork(deps: CaptchaDeps, id: string, s: V1State): { work?: WorkView } {
  const work = view(deps, id, s).work;
  return work ? { work } : {};
}

/** Test sitekeys' image challenges: a fixed score, as before scores had reasons. */
const EXEMPT_SCORE = { score: 0.3, reasons: [] };

/**
 * A v1 token's score (risk.ts). Escalated from the managed flow: that flow's score, raised by
 * a right image answer when its environment proof was right (a person whose evidence fell
 * short, say behind a busy network). Otherwise scored here like a managed token: the work,
 * this challenge's own environment proof, the image answer and the evidence seen when the
 * challenge was made; the no-image path is the same without the image answer.
 */
function v1Score(
  deps: CaptchaDeps,
  s: V1State,
  proof: V1Proof,
  how: {
    imageAnswer: boolean;
    noImage: boolean;
    elapsedMs: number | undefined;
    attested: boolean;
    request: BrowserRequest;
  },
): { score: number; reasons: string[] } {
  const { imageAnswer, noImage, elapsedMs, attested } = how;
  if (s.exempt) return EXEMPT_SCORE;
  if (s.workDone) {
    const base = s.score ?? 0;
    // The image makes up for the network and the pace, never for a sign of automation (risk.ts).
    if (noImage || !s.engine || !imageMayLift(s.reasons ?? [])) return { score: base, reasons: s.reasons ?? [] };
    return { score: Math.min(1, Math.round(base * 100 + 20) / 100), reasons: [...(s.reasons ?? []), 'image_answer'] };
  }
  const size = { count: s.count, bits: s.bits + (noImage ? NO_IMAGE_EXTRA_BITS : 0) };
  return scoreEvidence({
    evidence: unpackEvidence(s.ev),
    telemetry: proof.telemetry,
    request: how.request,
    envOk: checkEnv(deps.tokenKey, s.env ?? null, proof.env),
    work: elapsedMs === undefined ? undefined : { size, elapsedMs },
    imageAnswer,
    attested,
  });
}

/** Seals the token with its score, then spends the challenge; a lost race is a 404 (someone else spent it). */
async function finish(
  deps: CaptchaDeps,
  id: string,
  s: V1State,
  admitted: AdmittedSite,
  scored: { score: number; reasons: string[] },
): Promise<V1Verdict> {
  const issued = issueToken(deps, admitted, { kind: 'v1', action: s.action, cdata: s.cdata, ...scored });
  if (!(await guardStore(deps.stores.challenges.delete(id)))) throw notFound('Challenge');
  return { success: true, ...issued };
}

/** A new image and answer for the same challenge, at most V1_LIMITS.regenerations times. */
export async function regenerateV1(deps: CaptchaDeps, id: string, req: BrowserRequest): Promise<V1View> {
  const { state } = await load(deps, id, req);
  if (state.regenerations >= V1_LIMITS.regenerations) {
    throw validationError('challenge', 'This challenge cannot be regenerated any more; start a new one.');
  }
  // Set by the run of the update that is stored (on Redis it may run more than once).
  let regenerated = false;
  const next = (await guardStore(
    deps.stores.challenges.update(id, (s: V1State) => {
      regenerated = s.regenerations < V1_LIMITS.regenerations;
      if (!regenerated) return s;
      return { ...s, regenerations: s.regenerations + 1 };
    }),
  )) as V1State | null;
  if (!next) throw notFound('Challenge');
  if (!regenerated) {
    throw validationError('challenge', 'This challenge cannot be regenerated any more; start a new one.');
  }
  return view(deps, id, next);
}
