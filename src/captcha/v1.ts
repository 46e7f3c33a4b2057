import { randomBytes } from 'node:crypto';
import { notFound, validationError } from '../errors.ts';
import { answerMatches, generateAnswer, generateSalt, hashAnswer } from './answer.ts';
import { openAnswer, sealAnswer } from './answer-seal.ts';
import { admit, guardStore, issueToken, type AdmittedSite, type BrowserRequest, type CaptchaDeps, type IssuedToken } from './context.ts';
import { renderChallenge } from './render.ts';
import { TEST_ANSWER } from './test-keys.ts';

/** How long a challenge lives, how many answers and new images it allows. */
export const V1_LIMITS = { ttlMs: 10 * 60_000, attempts: 3, regenerations: 5 } as const;

/** v1 state in the challenge store. Only the answer's hash and a sealed copy are kept. */
export interface V1State {
  kind: 'v1';
  site: string;
  hostname: string;
  answerHash: string;
  salt: string;
  answerSealed: string;
  attempts: number;
  regenerations: number;
  expiresAt: number;
  action: string | null;
  cdata: string | null;
  /** Score carried into the token when the managed flow escalated here. */
  score: number | null;
  /** The test sitekey `block` never lets a challenge be solved. */
  unsolvable: boolean;
}

export interface V1View {
  challenge: string;
  kind: 'v1';
  asset_url: string;
  expires_at: string;
  attempts_left: number;
  regenerations_left: number;
}

function newAnswer(admitted: AdmittedSite) {
  const answer = admitted.test ? TEST_ANSWER : generateAnswer();
  const salt = generateSalt();
  return { answerHash: hashAnswer(answer, salt), salt, answer };
}

function view(id: string, s: V1State): V1View {
  return {
    challenge: id,
    kind: 'v1',
    asset_url: `/api/v1/challenges/${id}/asset?v=${s.regenerations}`,
    expires_at: new Date(s.expiresAt).toISOString(),
    attempts_left: Math.max(0, V1_LIMITS.attempts - s.attempts),
    regenerations_left: Math.max(0, V1_LIMITS.regenerations - s.regenerations),
  };
}

/** Creates an image challenge for an admitted site. */
export async function createV1(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  opts: { action?: string | null; cdata?: string | null; score?: number | null } = {},
): Promise<V1View> {
  const id = randomBytes(16).toString('base64url');
  const { answer, ...hashed } = newAnswer(admitted);
  const state: V1State = {
    kind: 'v1',
    site: admitted.site.sitekey,
    hostname: admitted.hostname,
    ...hashed,
    answerSealed: sealAnswer(answer, deps.tokenKey),
    attempts: 0,
    regenerations: 0,
    expiresAt: deps.now() + V1_LIMITS.ttlMs,
    action: opts.action ?? null,
    cdata: opts.cdata ?? null,
    score: opts.score ?? null,
    unsolvable: admitted.test === 'block',
  };
  await guardStore(deps.stores.challenges.create(id, state, V1_LIMITS.ttlMs));
  return view(id, state);
}

/** Loads a live v1 challenge and checks the request's origin against its site. */
async function load(deps: CaptchaDeps, id: string, req: BrowserRequest): Promise<{ state: V1State; admitted: AdmittedSite }> {
  const state = (await guardStore(deps.stores.challenges.get(id))) as V1State | null;
  if (!state || state.kind !== 'v1' || state.expiresAt <= deps.now()) throw notFound('Challenge');
  return { state, admitted: await admit(deps, state.site, req) };
}

/** The challenge image (PNG) of the current answer. */
export async function renderV1Asset(deps: CaptchaDeps, id: string, req: BrowserRequest): Promise<Buffer> {
  const { state } = await load(deps, id, req);
  return renderChallenge(openAnswer(state.answerSealed, deps.tokenKey));
}

export type V1Verdict =
  | ({ success: true } & IssuedToken)
  | { success: false; error: 'wrong-answer' | 'challenge-spent'; attempts_left: number };

/**
 * Checks an answer. The attempt is counted atomically before the answer is compared, so
 * parallel guesses cannot exceed the limit; a right answer spends the challenge (delete
 * exactly once) and yields a token.
 */
export async function verifyV1(deps: CaptchaDeps, id: string, answer: string, req: BrowserRequest): Promise<V1Verdict> {
  const { admitted } = await load(deps, id, req);
  // A challenge with no attempts left is deleted here rather than counted again.
  const counted = (await guardStore(
    deps.stores.challenges.update(id, (s: V1State) => (s.attempts >= V1_LIMITS.attempts ? null : { ...s, attempts: s.attempts + 1 })),
  )) as V1State | null;
  if (!counted) return { success: false, error: 'challenge-spent', attempts_left: 0 };
  const right = !counted.unsolvable && answerMatches(counted.answerHash, counted.salt, answer);
  if (right) {
    if (!(await guardStore(deps.stores.challenges.delete(id)))) throw notFound('Challenge');
    return { success: true, ...issueToken(deps, admitted, { kind: 'v1', action: counted.action, cdata: counted.cdata, score: counted.score }) };
  }
  const left = V1_LIMITS.attempts - counted.attempts;
  if (left <= 0) {
    await guardStore(deps.stores.challenges.delete(id));
    return { success: false, error: 'challenge-spent', attempts_left: 0 };
  }
  return { success: false, error: 'wrong-answer', attempts_left: left };
}

/** A new image and answer for the same challenge, at most V1_LIMITS.regenerations times. */
export async function regenerateV1(deps: CaptchaDeps, id: string, req: BrowserRequest): Promise<V1View> {
  const { state, admitted } = await load(deps, id, req);
  if (state.regenerations >= V1_LIMITS.regenerations) {
    throw validationError('challenge', 'This challenge cannot be regenerated any more; start a new one.');
  }
  const { answer, ...hashed } = newAnswer(admitted);
  const answerSealed = sealAnswer(answer, deps.tokenKey);
  const next = (await guardStore(
    deps.stores.challenges.update(id, (s: V1State) =>
      s.regenerations >= V1_LIMITS.regenerations ? s : { ...s, ...hashed, answerSealed, regenerations: s.regenerations + 1 },
    ),
  )) as V1State | null;
  if (!next) throw notFound('Challenge');
  if (next.answerSealed !== answerSealed) {
    throw validationError('challenge', 'This challenge cannot be regenerated any more; start a new one.');
  }
  return view(id, next);
}
