/**
 * Deterministic risk scoring for the managed (invisible) flow and for v3 scores.
 * Same direction as reCAPTCHA v3: 1.0 is most likely human, 0.0 most likely automated.
 *
 * The score starts at {@link RISK_BASELINE} and each matching rule adds its adjustment.
 * Arithmetic is in hundredths, so results are exact to 0.01; the sum is clamped to [0, 1].
 *
 * | reason                    | condition                                              | adjustment |
 * |---------------------------|--------------------------------------------------------|-----------:|
 * | `ip_rate_very_high`       | ipRequestsPerMinute > 120                              |      -0.40 |
 * | `ip_rate_high`            | ipRequestsPerMinute > 30 (and not very high)           |      -0.20 |
 * | `site_rate_high`          | siteRequestsPerMinute > 600                            |      -0.10 |
 * | `ua_missing`              | User-Agent absent or blank                             |      -0.30 |
 * | `ua_automation`           | User-Agent names an automation tool, library or bot    |      -0.40 |
 * | `accept_language_missing` | Accept-Language absent or blank                        |      -0.10 |
 * | `referer_origin_mismatch` | Origin and Referer both present, Referer's origin differs (or is unparseable) | -0.15 |
 * | `webdriver`               | telemetry.webdriver === true                           |      -0.50 |
 * | `fast_submit`             | telemetry.timeOnPageMs < 1500                          |      -0.20 |
 * | `no_interaction`          | telemetry.interactions === 0                           |      -0.05 |
 * | `interactions`            | telemetry.interactions >= 3                            |      +0.10 |
 * | `pow_solved`              | powSolved === true                                     |      +0.20 |
 *
 * Absent telemetry fields apply no adjustment.
 */

/** What the request tells about its sender. Rates come from the counter store. */
export interface RiskSignals {
  ipRequestsPerMinute: number;
  siteRequestsPerMinute: number;
  userAgent?: string;
  acceptLanguage?: string;
  origin?: string;
  referer?: string;
  telemetry?: { webdriver?: boolean; timeOnPageMs?: number; interactions?: number };
  powSolved?: boolean;
}

/** A score in [0, 1] (two decimals) and the reasons (rule names) that moved it. */
export interface RiskScore {
  score: number;
  reasons: string[];
}

/** What the managed flow asks of the visitor. */
export type ManagedDecision = { outcome: 'pass' } | { outcome: 'pow'; difficulty: number } | { outcome: 'challenge' };

/** Score before any adjustment: an unremarkable browser passes the managed flow. */
export const RISK_BASELINE = 0.7;

/** Managed flow: scores at or above this pass without interaction. */
export const PASS_THRESHOLD = 0.7;
/** Managed flow: scores at or above this (and below PASS) get a proof of work; below, an image challenge. */
export const POW_THRESHOLD = 0.3;
/** Proof-of-work difficulty (leading zero bits) at the pass threshold and at the pow threshold. */
export const POW_DIFFICULTY_RANGE = { min: 12, max: 20 } as const;

const automationUa =
  /headlesschrome|phantomjs|puppeteer|playwright|selenium|webdriver|python-requests|python-urllib|aiohttp|httpx|curl\/|wget|go-http-client|node-fetch|undici|axios|okhttp|java\/|libwww|scrapy|\bbot\b|bot\/|crawler|spider/i;

/** Scores `signals` by the table above. Pure and deterministic. */
export function scoreRisk(signals: RiskSignals): RiskScore {
  let points = Math.round(RISK_BASELINE * 100);
  const reasons: string[] = [];
  const apply = (reason: string, delta: number) => {
    points += delta;
    reasons.push(reason);
  };

  if (signals.ipRequestsPerMinute > 120) apply('ip_rate_very_high', -40);
  else if (signals.ipRequestsPerMinute > 30) apply('ip_rate_high', -20);
  if (signals.siteRequestsPerMinute > 600) apply('site_rate_high', -10);

  const ua = signals.userAgent?.trim() ?? '';
  if (!ua) apply('ua_missing', -30);
  else if (automationUa.test(ua)) apply('ua_automation', -40);

  if (!signals.acceptLanguage?.trim()) apply('accept_language_missing', -10);

  if (signals.origin && signals.referer && refererOrigin(signals.referer) !== signals.origin.trim().toLowerCase()) {
    apply('referer_origin_mismatch', -15);
  }

  const t = signals.telemetry;
  if (t?.webdriver === true) apply('webdriver', -50);
  if (typeof t?.timeOnPageMs === 'number' && t.timeOnPageMs < 1500) apply('fast_submit', -20);
  if (t?.interactions === 0) apply('no_interaction', -5);
  else if (typeof t?.interactions === 'number' && t.interactions >= 3) apply('interactions', 10);

  if (signals.powSolved === true) apply('pow_solved', 20);

  return { score: Math.min(100, Math.max(0, points)) / 100, reasons };
}

/**
 * Maps a score to the managed flow's next step: `pass` at >= 0.7; `pow` at >= 0.3 with a
 * difficulty growing linearly from 12 bits (score 0.7) to 20 bits (score 0.3); `challenge`
 * (an image CAPTCHA) below 0.3.
 */
export function decideManaged(score: number): ManagedDecision {
  if (!(score >= POW_THRESHOLD)) return { outcome: 'challenge' }; // also catches NaN
  if (score >= PASS_THRESHOLD) return { outcome: 'pass' };
  const { min, max } = POW_DIFFICULTY_RANGE;
  const risk = (PASS_THRESHOLD - score) / (PASS_THRESHOLD - POW_THRESHOLD);
  const difficulty = Math.min(max, Math.max(min, Math.round(min + risk * (max - min))));
  return { outcome: 'pow', difficulty };
}

/** Lower-cased `scheme://host[:port]` of a Referer, or null when it is not an absolute URL. */
function refererOrigin(referer: string): string | null {
  try {
    const origin = new URL(referer).origin;
    return origin === 'null' ? null : origin.toLowerCase();
  } catch {
    return null;
  }
}
