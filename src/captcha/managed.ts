import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.ts';
import { admit, guardStore, issueToken, type AdmittedSite, type BrowserRequest, type CaptchaDeps, type IssuedToken } from './context.ts';
import { createPow, POW_TTL_MS, verifyPow } from './pow.ts';
import { decideManaged, scoreRisk, type RiskSignals } from './risk.ts';
import { createV1, type V1View } from './v1.ts';

/** Telemetry the widget sends; nothing else about the visitor is read. */
export interface Telemetry {
  webdriver?: boolean;
  timeOnPageMs?: number;
  interactions?: number;
}

const RATE_WINDOW_MS = 60_000;
/** Wrong proofs allowed on one puzzle before it is spent. */
const POW_ATTEMPTS = 3;

/** Collects the risk signals of a request: rates from the counter store, the rest from headers and telemetry. */
export async function riskSignals(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  req: BrowserRequest,
  telemetry: Telemetry | undefined,
): Promise<RiskSignals> {
  const [ipRequestsPerMinute, siteRequestsPerMinute] = await guardStore(
    Promise.all([
      deps.stores.counters.hit(`ip:${req.ip}`, RATE_WINDOW_MS),
      deps.stores.counters.hit(`site:${admitted.site.sitekey}`, RATE_WINDOW_MS),
    ]),
  );
  return {
    ipRequestsPerMinute,
    siteRequestsPerMinute,
    userAgent: req.userAgent,
    acceptLanguage: req.acceptLanguage,
    origin: admitted.origin,
    referer: req.referer,
    telemetry,
  };
}

/** A pending proof-of-work in the challenge store. */
interface PowState {
  kind: 'pow';
  site: string;
  salt: string;
  difficulty: number;
  expiresAt: number;
  attempts: number;
  action: string | null;
  cdata: string | null;
  signals: RiskSignals;
}

export type ManagedOutcome =
  | ({ outcome: 'pass' } & IssuedToken)
  | { outcome: 'pow'; challenge: string; salt: string; difficulty: number; expires_at: string }
  | { outcome: 'challenge'; challenge: V1View };

export interface ManagedInput {
  sitekey: string;
  action?: string | null;
  cdata?: string | null;
  telemetry?: Telemetry;
}

/**
 * v2: the server decides from the risk score: pass with a token, a proof-of-work scaled
 * by risk, or an embedded v1 image challenge. Test sitekeys force their outcome.
 */
export async function startManaged(deps: CaptchaDeps, input: ManagedInput, req: BrowserRequest): Promise<ManagedOutcome> {
  const admitted = await admit(deps, input.sitekey, req);
  const action = input.action ?? null;
  const cdata = input.cdata ?? null;
  const signals = await riskSignals(deps, admitted, req, input.telemetry);
  const { score } = scoreRisk(signals);
  const decision =
    admitted.test === 'pass' ? ({ outcome: 'pass' } as const)
    : admitted.test ? ({ outcome: 'challenge' } as const)
    : decideManaged(score);
  if (decision.outcome === 'pass') {
    return { outcome: 'pass', ...issueToken(deps, admitted, { kind: 'v2', action, cdata, score }) };
  }
  if (decision.outcome === 'challenge') {
    return { outcome: 'challenge', challenge: await createV1(deps, admitted, { action, cdata, score }) };
  }
  const puzzle = createPow(decision.difficulty, deps.now());
  const id = randomBytes(16).toString('base64url');
  const state: PowState = {
    kind: 'pow',
    site: admitted.site.sitekey,
    salt: puzzle.salt,
    difficulty: puzzle.difficulty,
    expiresAt: puzzle.expiresAt,
    attempts: 0,
    action,
    cdata,
    signals,
  };
  await guardStore(deps.stores.challenges.create(id, state, POW_TTL_MS));
  return { outcome: 'pow', challenge: id, salt: puzzle.salt, difficulty: puzzle.difficulty, expires_at: new Date(puzzle.expiresAt).toISOString() };
}

export type PowVerdict = ({ success: true } & IssuedToken) | { success: false; error: 'invalid-proof'; attempts_left: number };

/**
 * Checks a proof-of-work. A valid proof spends the puzzle (exactly once) and yields a v2
 * token whose score counts the solved work; an unknown, expired or spent puzzle is a 404.
 */
export async function verifyManaged(deps: CaptchaDeps, id: string, nonce: string, req: BrowserRequest): Promise<PowVerdict> {
  const state = (await guardStore(deps.stores.challenges.get(id))) as PowState | null;
  if (!state || state.kind !== 'pow' || state.expiresAt <= deps.now()) throw notFound('Challenge');
  const admitted = await admit(deps, state.site, req);
  if (verifyPow(state.salt, state.difficulty, nonce)) {
    if (!(await guardStore(deps.stores.challenges.delete(id)))) throw notFound('Challenge');
    const { score } = scoreRisk({ ...state.signals, powSolved: true });
    return { success: true, ...issueToken(deps, admitted, { kind: 'v2', action: state.action, cdata: state.cdata, score }) };
  }
  const counted = (await guardStore(
    deps.stores.challenges.update(id, (s: PowState) => (s.attempts + 1 >= POW_ATTEMPTS ? null : { ...s, attempts: s.attempts + 1 })),
  )) as PowState | null;
  return { success: false, error: 'invalid-proof', attempts_left: counted ? POW_ATTEMPTS - counted.attempts : 0 };
}

export interface ScoreInput {
  sitekey: string;
  action: string;
  cdata?: string | null;
  telemetry?: Telemetry;
}

/** v3: an opaque token with the score sealed inside; the browser never sees the score. */
export async function issueScoreToken(deps: CaptchaDeps, input: ScoreInput, req: BrowserRequest): Promise<IssuedToken> {
  const admitted = await admit(deps, input.sitekey, req);
  const signals = await riskSignals(deps, admitted, req, input.telemetry);
  const score = admitted.test === 'pass' ? 0.9 : admitted.test === 'block' ? 0 : scoreRisk(signals).score;
  return issueToken(deps, admitted, { kind: 'v3', action: input.action, cdata: input.cdata ?? null, score });
}
