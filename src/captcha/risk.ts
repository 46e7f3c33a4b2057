import type { Evidence, Telemetry } from './evidence.ts';
import { PACE } from './evidence.ts';
import { expectedAttempts, type WorkSize } from './work.ts';

/**
 * The score sealed into v2 and v3 tokens, from evidence. Same direction as reCAPTCHA v3:
 * 1.0 most likely a person, 0.0 most likely automated. Arithmetic in hundredths; the sum is
 * clamped to [0, 1]. Nothing a client says raises it: telemetry only ever subtracts.
 *
 * | reason            | condition                                                         | adjustment |
 * |-------------------|-------------------------------------------------------------------|-----------:|
 * | (base)            | every request                                                     |      +0.10 |
 * | `env_proof`       | the per-challenge environment program answered right (env-proof.ts) | +0.50 |
 * | `work`            | a proof of the asked size redeemed                                |      +0.30 |
 * | `work_too_fast`   | solved faster than {@link BROWSER_MAX_RATE} attempts/s allows     |      -0.30 |
 * | `webdriver`       | telemetry: navigator.webdriver is true                            |      -0.60 |
 * | `ua_headless`     | User-Agent says headless                                          |      -0.40 |
 * | `ua_automation`   | User-Agent names an automation tool, library or bot               |      -0.40 |
 * | `ua_missing`      | no User-Agent                                                     |      -0.30 |
 * | `accept_language_missing` | no Accept-Language                                        |      -0.10 |
 * | `referer_origin_mismatch` | Referer from another origin than Origin                   |      -0.15 |
 * | `velocity_high`   | client, network or wide-network rate above 4 × its pace (evidence.ts PACE) | -0.20 |
 * | `velocity_very_high` | above 16 × its pace (instead of velocity_high)                 |      -0.40 |
 * | `failures`        | two or more failed proofs or wrong answers in 10 min              |      -0.10 |
 * | `no_interaction`  | telemetry: no pointer or key press on the page                    |      -0.10 |
 * | `fast_submit`     | telemetry: less than 1.5 s on the page                            |      -0.10 |
 *
 * Cap: without a right environment proof the score is at most 0.10, whatever else holds
 * (a plain HTTP client, even one that did the work, scores 0.10 or less).
 */

export interface ScoreSignals {
  evidence: Evidence;
  telemetry?: Telemetry;
  /** Whether the environment program was answered right. */
  envOk: boolean;
  /** The redeemed work and how long after issue it came back. */
  work?: { size: WorkSize; elapsedMs: number };
}

export interface RiskScore {
  score: number;
  reasons: string[];
}

/** Attempts per second beyond any browser: 16 workers at twice this machine's 10,000 a second each (walk.wat). */
export const BROWSER_MAX_RATE = 320_000;
/** Without a right environment proof the score is capped here. */
export const NO_ENV_CAP = 0.1;
/**
 * A v1 token's score: a right image answer (with its work) proves no browser, so it scores
 * at most this; the no-image path is work only, scored as work without an environment proof
 * ({@link NO_ENV_CAP}). A v1 token reached through v2's escalation keeps its lower v2 score.
 */
export const IMAGE_ANSWER_SCORE = 0.3;
export const WORK_ONLY_SCORE = 0.1;
/** v2: a score at or above this passes after the invisible work; below, the image challenge. */
export const PASS_THRESHOLD = 0.5;
/** v2: before any work, a score (assuming work and environment proof) below this goes to the image at once. */
export const DIRECT_CHALLENGE_THRESHOLD = 0.3;

/** Scores `signals` by the table above. Pure and deterministic. */
export function scoreEvidence(s: ScoreSignals): RiskScore {
  let points = 10;
  const reasons: string[] = [];
  const apply = (reason: string, delta: number) => {
    points += delta;
    reasons.push(reason);
  };
  const ev = s.evidence;
  if (s.envOk) apply('env_proof', 50);
  if (s.work) {
    apply('work', 30);
    if (s.work.elapsedMs * BROWSER_MAX_RATE < expectedAttempts(s.work.size) * 1000) apply('work_too_fast', -30);
  }
  const t = s.telemetry;
  if (t?.webdriver === true) apply('webdriver', -60);
  if (ev.uaHeadless) apply('ua_headless', -40);
  if (ev.uaMissing) apply('ua_missing', -30);
  else if (ev.uaAutomation) apply('ua_automation', -40);
  if (ev.acceptLanguageMissing) apply('accept_language_missing', -10);
  if (ev.refererMismatch) apply('referer_origin_mismatch', -15);
  const excess = Math.max(ev.clientRate / PACE.client, ev.networkRate / PACE.network, ev.wideRate / PACE.wide);
  if (excess > 16) apply('velocity_very_high', -40);
  else if (excess > 4) apply('velocity_high', -20);
  if (ev.failures >= 2) apply('failures', -10);
  if (t?.interactions === 0) apply('no_interaction', -10);
  if (typeof t?.timeOnPageMs === 'number' && t.timeOnPageMs < 1500) apply('fast_submit', -10);
  let score = Math.min(100, Math.max(0, points)) / 100;
  if (!s.envOk) score = Math.min(score, NO_ENV_CAP);
  return { score, reasons };
}
