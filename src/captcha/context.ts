import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import type { Stores } from '../stores/index.ts';
import { networkKey } from '../net/client-key.ts';
import type { ReferenceSource } from './engine-reference.ts';
import type { NetworkClassifier } from '../net/hosting.ts';
import { browserKey, observe, type Evidence, type Telemetry } from './evidence.ts';
import { hostnameOf, originAllowed, requestOrigin } from './origins.ts';
import { siteByKey, type SiteView } from './sites.ts';
import { testSitekeyKind, type TestSitekeyKind } from './test-keys.ts';
import { newTokenId, sealToken, TOKEN_TTL_MS, type TokenKind } from './tokens.ts';
import type { ChallengeEvents } from '../analytics/counter.ts';
import { redeemWork, type WorkResult } from './work.ts';

/** What the challenge flows need from the service. */
export interface CaptchaDeps {
  em: EntityManager;
  stores: Stores;
  tokenKey: Buffer;
  now: () => number;
  /** Whether the published test keys work (TEST_KEYS); off, they are unknown keys. */
  testKeys: boolean;
  /** Layouts with engine-measured values for the environment proof (engine-reference.ts); none: no proof. */
  reference?: ReferenceSource;
  /** Where issued, solved and refused challenges are counted for the console (src/analytics); absent, nowhere. */
  events?: ChallengeEvents;
  /** Whether Private Access Tokens are asked (PAT_ISSUERS set): only then is a challenge's attestation looked up. */
  privateTokens?: boolean;
  /** Which client networks are hosting networks (src/net/hosting.ts); absent, none is. */
  networks?: NetworkClassifier;
}

/** The browser side of a request: its origin and the signals risk scoring reads. */
export interface BrowserRequest {
  origin?: string;
  ip: string;
  userAgent?: string;
  acceptLanguage?: string;
  referer?: string;
  /** Sec-CH-UA and Sec-CH-UA-Platform as sent (page-signals.ts compares them with the page's report). */
  clientHints?: { ua?: string; platform?: string };
  /** Over TLS or to a loopback host: where a Chromium sends client hints. */
  secureTransport?: boolean;
}

/** A site with the request's origin checked against it. */
export interface AdmittedSite {
  site: SiteView;
  origin: string;
  hostname: string;
  test: TestSitekeyKind | null;
  /** The requester's network (networkKey of its address), sealed into the tokens it earns. */
  network: string;
}

/**
 * Store failures (Redis down) become 503 in the documented shape; the caller decides
 * nothing else from them. Challenge routes never succeed without their state.
 */
export async function guardStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('ERR_UNAVAILABLE', 'The challenge store is unavailable; try again shortly.', {
      retryAfter: 5,
      cause: err,
    });
  }
}

/** Redeems a widget's proof of work (`work` ticket and `solutions`) through the spent-token store. */
export function redeemProof(
  deps: CaptchaDeps,
  proof: { work?: unknown; solutions?: unknown },
  expect: Parameters<typeof redeemWork>[3],
): Promise<WorkResult> {
  const redeem = (id: string, ttlMs: number) => deps.stores.spentTokens.redeem(id, ttlMs);
  return guardStore(redeemWork(deps.tokenKey, redeem, { ticket: proof.work, solutions: proof.solutions }, expect));
}

/**
 * The origin rule: the request's Origin must be one of the site's registered origins
 * (test sitekeys: any). An unknown sitekey is refused the same way, so sitekeys cannot be
 * probed. Throws FORBIDDEN.
 */
export async function admit(deps: CaptchaDeps, sitekey: string, req: BrowserRequest): Promise<AdmittedSite> {
  const origin = requestOrigin(req.origin);
  if (!origin) {
    throw new AppError('ERR_ORIGIN_NOT_ALLOWED', 'This route needs an Origin header from a registered origin.');
  }
  const test = deps.testKeys ? testSitekeyKind(sitekey) : null;
  const site = test
    ? { sitekey, origins: [], test: true, level: 'default' as const, minWorkBits: null }
    : await siteByKey(deps.em, sitekey, deps.now());
  if (!site || (!site.test && !originAllowed(site.origins, origin))) {
    throw new AppError('ERR_ORIGIN_NOT_ALLOWED', 'The origin is not registered for this sitekey.');
  }
  return { site, origin, hostname: hostnameOf(origin), test, network: networkKey(req.ip) };
}

export interface IssuedToken {
  token: string;
  expires_at: string;
}

/** Seals a token for an admitted site; only siteverify can read what is inside. */
export function issueToken(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  claims: { kind: TokenKind; action: string | null; cdata: string | null; score: number | null; reasons?: string[] },
): IssuedToken {
  if (!admitted.test) deps.events?.record(admitted.site.sitekey, 'solved', claims.kind);
  const iat = deps.now();
  const token = sealToken(
    {
      id: newTokenId(),
      site: admitted.site.sitekey,
      hostname: admitted.hostname,
      iat,
      net: admitted.network,
      ...claims,
      reasons: claims.reasons ?? [],
    },
    deps.tokenKey,
  );
  return { token, expires_at: new Date(iat + TOKEN_TTL_MS).toISOString() };
}

/**
 * Counts a challenge handed out to an admitted site (not the test sitekeys): its kind, the
 * work it asks (2^bits expected hashes) and the requester's network.
 */
export function countIssued(deps: CaptchaDeps, admitted: AdmittedSite, kind: TokenKind, bits: number): void {
  const events = deps.events;
  if (!events || admitted.test) return;
  const sitekey = admitted.site.sitekey;
  events.record(sitekey, 'issued', kind);
  events.record(sitekey, 'work', String(bits));
  events.record(sitekey, 'network', admitted.network);
}

/**
 * The evidence of one challenge request (evidence.ts observe): the client's network classified
 * first (hosting or not, with the site's own rules), and the browser its telemetry describes.
 */
export async function observeRequest(
  deps: CaptchaDeps,
  admitted: AdmittedSite,
  req: BrowserRequest,
  telemetry?: Telemetry,
): Promise<Evidence> {
  const network = await deps.networks?.classify(req.ip, admitted.site.networks);
  return guardStore(
    observe(deps.stores, admitted.site.sitekey, {
      ...req,
      origin: admitted.origin,
      hosting: network?.hosting,
      browser: browserKey(telemetry),
    }),
  );
}
