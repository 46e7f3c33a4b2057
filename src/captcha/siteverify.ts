import type { EntityManager } from '@mikro-orm/postgresql';
import type { Stores } from '../stores/index.ts';
import { siteBySecret, type SiteBySecret } from './sites.ts';
import { isDummyToken, isTestSitekey, testSecretKind, type TestSecretKind } from './test-keys.ts';
import { isExpired, MAX_TOKEN_LENGTH, openToken, type TokenClaims } from './tokens.ts';
import { checkToken, spendToken, type TokenRefusal } from './token-rules.ts';
import type { CountedRedemption } from '../stores/spent-token-store.ts';
import { siteverifyLimit } from './siteverify-limit.ts';
import { isIP } from 'node:net';
import { networkKey } from '../net/client-key.ts';
import { scoreLabel, type ChallengeEvents } from '../analytics/counter.ts';

/** The error codes of the Turnstile/reCAPTCHA protocol that we answer with. */
export type SiteverifyErrorCode =
  | 'missing-input-secret'
  | 'invalid-input-secret'
  | 'missing-input-response'
  | 'invalid-input-response'
  | 'timeout-or-duplicate'
  | 'remoteip-mismatch'
  | 'bad-request'
  | 'internal-error';

/**
 * A verdict in the Turnstile/reCAPTCHA shape, plus our `kind` (v1, v2 or v3) and `score` for
 * every token that carries one (v3 always; v2 and escalated v1 tokens too).
 */
export interface Verdict {
  success: boolean;
  challenge_ts?: string;
  hostname?: string;
  'error-codes': SiteverifyErrorCode[];
  action?: string | null;
  cdata?: string | null;
  score?: number;
  kind?: TokenClaims['kind'];
  /** What set the score (risk.ts reasons), and `below_site_minimum` when the site's minimum refused it. */
  reasons?: string[];
}

export interface SiteverifyInput {
  secret?: string;
  response?: string;
  remoteip?: string;
  sitekey?: string;
  idempotency_key?: string;
}

export interface SiteverifyDeps {
  em: EntityManager;
  stores: Stores;
  tokenKey: Buffer;
  now: () => number;
  /** Whether the published test secrets work (TEST_KEYS); off, they are unknown secrets. */
  testKeys: boolean;
  /** Where verified and refused tokens are counted for the console (src/analytics); absent, nowhere. */
  events?: ChallengeEvents;
}

export function failure(...codes: SiteverifyErrorCode[]): Verdict {
  return { success: false, 'error-codes': codes };
}

function successFrom(claims: TokenClaims): Verdict {
  return {
    success: true,
    challenge_ts: new Date(claims.iat).toISOString(),
    hostname: claims.hostname,
    'error-codes': [],
    action: claims.action,
    cdata: claims.cdata,
    ...(claims.score !== null ? { score: claims.score } : {}),
    kind: claims.kind,
    reasons: claims.reasons,
  };
}

/**
 * A token scoring below its site's minimum: refused with the code every provider's clients
 * already handle as a failed check (`invalid-input-response`), with its score, kind and
 * reasons so the site can see why. Not redeemed: nothing is spent by a refusal.
 */
function belowMinimum(claims: TokenClaims): Verdict {
  return {
    ...failure('invalid-input-response'),
    ...(claims.score !== null ? { score: claims.score } : {}),
    kind: claims.kind,
    reasons: [...claims.reasons, 'below_site_minimum'],
  };
}

/**
 * What the test secrets answer (see test-keys.ts): the passing ones accept only dummy tokens,
 * the providers' published ones and the tokens of our test sitekeys (not redeemed: they
 * prove nothing); every other response, a real token included, is invalid.
 */
function testVerdict(kind: TestSecretKind, response: string, deps: SiteverifyDeps): Verdict {
  if (kind === 'fail') return failure('invalid-input-response');
  if (kind === 'spent') return failure('timeout-or-duplicate');
  const now = deps.now();
  if (isDummyToken(response))
    return {
      success: true,
      challenge_ts: new Date(now).toISOString(),
      hostname: 'example.com',
      'error-codes': [],
      action: null,
      cdata: null,
    };
  const opened = response.length <= MAX_TOKEN_LENGTH ? openToken(response, deps.tokenKey) : undefined;
  if (opened?.ok && isTestSitekey(opened.claims.site) && !isExpired(opened.claims, now))
    return successFrom(opened.claims);
  return failure('invalid-input-response');
}

/** A siteverify call's fields, trimmed once; empty fields are absent. */
interface Normalised {
  secret?: string;
  response?: string;
  sitekey?: string;
  idempotencyKey?: string;
  /** The network (networkKey) of `remoteip`, when it is an address. */
  remoteNet?: string;
  /** `remoteip` was sent but is not one address (a list, a name, garbage): the call is malformed. */
  remoteipInvalid: boolean;
}

function normalise(input: SiteverifyInput): Normalised {
  const remoteip = input.remoteip?.trim();
  return {
    secret: input.secret?.trim() || undefined,
    response: input.response?.trim() || undefined,
    sitekey: input.sitekey || undefined,
    idempotencyKey: input.idempotency_key || undefined,
    remoteNet: remoteip && isIP(remoteip) ? networkKey(remoteip) : undefined,
    remoteipInvalid: !!remoteip && !isIP(remoteip),
  };
}

/** Siteverify's answer to a token the rules refuse (token-rules.ts). */
function refusalVerdict(refusal: TokenRefusal, claims: TokenClaims | undefined): Verdict {
  if (refusal === 'expired') return failure('timeout-or-duplicate');
  if (refusal === 'other-network') return failure('remoteip-mismatch');
  if (refusal === 'below-minimum' && claims) return belowMinimum(claims);
  return failure('invalid-input-response');
}

/** The site a (normalised) secret belongs to; null for a missing, test or unknown secret. */
function secretSite(deps: SiteverifyDeps, secret: string | undefined): Promise<SiteBySecret | null> {
  return secret && !(deps.testKeys && testSecretKind(secret))
    ? siteBySecret(() => deps.em, secret, deps.now())
    : Promise.resolve(null);
}

/** A token that passed every check but redemption, and what redeeming it needs. */
interface Redeemable {
  claims: TokenClaims;
  /** How long its spent mark lives. */
  markTtl: number;
  /** Where the verdict is remembered under the call's idempotency key, when it has one. */
  verdictKey?: string;
}

/**
 * Checks 1-6 of {@link verifyToken} on the site its secret names (null when none does), which
 * need no store: a verdict already decided, or the token to redeem.
 */
async function examine(
  deps: SiteverifyDeps,
  { secret, response, sitekey, idempotencyKey, remoteNet, remoteipInvalid }: Normalised,
  site: SiteBySecret | null,
): Promise<{ verdict: Verdict } | Redeemable> {
  if (!secret)
    return { verdict: failure('missing-input-secret', ...(response ? [] : (['missing-input-response'] as const))) };
  if (!response) return { verdict: failure('missing-input-response') };
  // Silently ignoring a `remoteip` we cannot read would turn the network binding off.
  if (remoteipInvalid) return { verdict: failure('bad-request') };
  const testKind = deps.testKeys ? testSecretKind(secret) : null;
  if (testKind) return { verdict: testVerdict(testKind, response, deps) };

  if (!site) return { verdict: failure('invalid-input-secret') };
  if (sitekey && sitekey !== site.sitekey) return { verdict: failure('invalid-input-response') };
  const checked = checkToken(
    response,
    deps.tokenKey,
    { sitekey: site.sitekey, minScore: site.minScore, network: remoteNet, networkCheck: site.remoteipCheck },
    deps.now(),
  );
  if (!checked.ok) return { verdict: refusalVerdict(checked.refusal, checked.claims) };
  const { claims, markTtl } = checked;
  const verdictKey = idempotencyKey ? `${site.sitekey}:${idempotencyKey}:${claims.id}` : undefined;
  return { claims, markTtl, verdictKey };
}

/** Checks 7-8 of {@link verifyToken}: the idempotent verdict, then the atomic redemption. */
async function redeem(deps: SiteverifyDeps, { claims, markTtl, verdictKey }: Redeemable): Promise<Verdict> {
  try {
    if (verdictKey) {
      const earlier = await deps.stores.spentTokens.recallVerdict(verdictKey);
      if (earlier) return earlier as Verdict;
    }
    if (!(await spendToken(deps.stores, claims, markTtl))) {
      // A retry racing the first call with the same key may find its verdict now.
      const earlier = verdictKey ? await deps.stores.spentTokens.recallVerdict(verdictKey) : null;
      return (earlier as Verdict | null) ?? failure('timeout-or-duplicate');
    }
    const verdict = successFrom(claims);
    if (verdictKey) await deps.stores.spentTokens.rememberVerdict(verdictKey, verdict, markTtl);
    return verdict;
  } catch {
    return failure('internal-error');
  }
}

/**
 * The one-time token verifier behind both siteverify paths. Checks, in this order:
 * 1. secret present, 2. response present, and `remoteip`, when sent, one address
 * (`bad-request` otherwise), 3. secret known (test secrets answer at once),
 * 4. token opens under our key and is at most 2048 characters, 5. token belongs to the
 * secret's site (and to `sitekey` when given), 6. not expired (300 s), and solved on the
 * network of `remoteip` when the site sends one (IPv4 /24, IPv6 /64; the site's
 * `remoteip_check` may relax this to a low score or turn it off), and scoring at least the
 * site's minimum (`invalid-input-response` with the score and reasons below it), 7. with an
 * idempotency key, a verdict already given for it and this token is repeated, 8. the token
 * is redeemed atomically (SET NX): only the first redemption succeeds. Any store failure
 * answers `internal-error`, never a success. No rate limit: {@link siteverify} is the call
 * behind the HTTP routes.
 */
export async function verifyToken(deps: SiteverifyDeps, input: SiteverifyInput): Promise<Verdict> {
  const call = normalise(input);
  const examined = await examine(deps, call, await secretSite(deps, call.secret));
  return 'verdict' in examined ? examined.verdict : redeem(deps, examined);
}

/**
 * What one siteverify call comes to: a verdict, or a refusal before any verdict: past its
 * rate limit (`limit` calls a minute, retry within `retryAfterSeconds`), or the limit could
 * not be counted because the store is down (siteverify never answers without its limit).
 */
export type SiteverifyOutcome =
  | { verdict: Verdict }
  | { refused: 'rate-limited'; limit: number; retryAfterSeconds: number }
  | { refused: 'unavailable'; cause: unknown };

/** Where a siteverify call comes from: its route (each counts its own limit) and client address. */
export interface SiteverifyCaller {
  route: string;
  ip: string;
}

/**
 * One siteverify call, as the HTTP routes make it: {@link verifyToken} under the call's rate
 * limit (siteverify-limit.ts: per route, site and address). The secret is normalised and its
 * site looked up once, for both the limit and the checks. Every call is counted, whatever its
 * verdict, before any redemption; a call past the limit redeems nothing. A call with a token
 * to redeem and no idempotency key is counted and redeemed in one store step
 * (SpentTokenStore.redeemWithin: one round trip on Redis); a call with a key is counted, then
 * goes through checks 7-8 as {@link verifyToken} does.
 */
export async function siteverify(
  deps: SiteverifyDeps,
  input: SiteverifyInput,
  caller: SiteverifyCaller,
): Promise<SiteverifyOutcome> {
  const call = normalise(input);
  const site = await secretSite(deps, call.secret);
  const examined = await examine(deps, call, site);
  const outcome = await redeemCounted(deps, site, caller, examined);
  if (site && deps.events) countOutcome(deps.events, site.sitekey, outcome, 'verdict' in examined);
  return outcome;
}

/**
 * Counts a siteverify outcome of a real site for the console: a success as `verified` (by
 * kind) and its score's tenth; a refusal by reason. A token refused before redemption as
 * `timeout-or-duplicate` was expired; one refused at redemption had been spent.
 */
function countOutcome(events: ChallengeEvents, sitekey: string, outcome: SiteverifyOutcome, early: boolean): void {
  if ('refused' in outcome) {
    if (outcome.refused === 'rate-limited') events.record(sitekey, 'refused', 'rate_limited');
    return;
  }
  const verdict = outcome.verdict;
  if (verdict.success) {
    if (verdict.kind) events.record(sitekey, 'verified', verdict.kind);
    if (verdict.score !== undefined) events.record(sitekey, 'score', scoreLabel(verdict.score));
  } else if (verdict['error-codes'][0] === 'timeout-or-duplicate') {
    events.record(sitekey, 'refused', early ? 'expired' : 'duplicate');
  } else if (verdict['error-codes'][0] === 'remoteip-mismatch') {
    events.record(sitekey, 'refused', 'remoteip_mismatch');
  } else if (verdict.reasons?.includes('below_site_minimum')) {
    events.record(sitekey, 'refused', 'below_minimum');
  }
}

/** The rate limit and the redemption of {@link siteverify}, in one store step where it can. */
async function redeemCounted(
  deps: SiteverifyDeps,
  site: SiteBySecret | null,
  caller: SiteverifyCaller,
  examined: { verdict: Verdict } | Redeemable,
): Promise<SiteverifyOutcome> {
  const limit = siteverifyLimit(caller.route, site, caller.ip);
  const redeemNow = 'verdict' in examined || examined.verdictKey ? null : examined;
  let counted: CountedRedemption;
  try {
    counted = await deps.stores.spentTokens.redeemWithin(limit, redeemNow?.claims.id ?? null, redeemNow?.markTtl ?? 0);
  } catch (cause) {
    return { refused: 'unavailable', cause };
  }
  if (counted.hits > limit.max) {
    return { refused: 'rate-limited', limit: limit.max, retryAfterSeconds: limit.windowMs / 1000 };
  }
  if ('verdict' in examined) return examined;
  if (!redeemNow) return { verdict: await redeem(deps, examined) };
  return { verdict: counted.redeemed ? successFrom(examined.claims) : failure('timeout-or-duplicate') };
}
