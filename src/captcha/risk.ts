import type { Evidence, Telemetry } from './evidence.ts';
import { PACE } from './evidence.ts';
import { expectedAttempts, type WorkSize } from './work.ts';

/**
 * The score sealed into every token, from evidence. Same direction as reCAPTCHA v3: 1.0 most
 * likely a person, 0.0 most likely automated. Arithmetic in hundredths; the sum is clamped to
 * [0, 1].
 *
 * The scale says what the evidence costs (docs/challenges.md, "Scores"). What a program makes
 * without a browser engine (the work, headers, telemetry, the box layout, an image answer,
 * which OCR reads) never lifts a token above {@link NO_ENGINE_CAP}; the top of the scale needs
 * the environment proof's text laid out by a real engine (env-proof.ts). Telemetry is
 * self-reported: it only ever lowers a score, and missing telemetry scores as the worst case.
 *
 * | reason            | condition                                                         | adjustment |
 * |-------------------|-------------------------------------------------------------------|-----------:|
 * | (base)            | every token                                                       |      +0.10 |
 * | `work`            | a proof of the asked size redeemed                                |      +0.20 |
 * | `layout_engine`   | the environment proof (boxes and text) answered right             |      +0.60 |
 * | `attested`        | a Private Access Token from a configured issuer for this challenge |     +0.20 |
 * | `image_answer`    | v1: the image read right (counts only beside `layout_engine`, never past 0.90) | +0.20 |
 * | `work_too_fast`   | solved faster than {@link BROWSER_MAX_RATE} attempts/s allows     |      -0.30 |
 * | `webdriver`       | telemetry: navigator.webdriver is true                            |      -0.60 |
 * | `telemetry_missing` | no telemetry sent (the widget always sends it)                  |      -0.60 |
 * | `headless_window` | telemetry: no browser frame (outer size = inner size) on a screen of the window's own size: a headless browser's default window |      -0.40 |
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
 * | `no_layout_engine` | no right environment proof: the score is capped at {@link NO_ENGINE_CAP} |   (cap) |
 *
 * The reasons applied travel in the token; siteverify shows them (`reasons`), so a site sees
 * why a token scored as it did.
 */

/**
 * Every reason {@link scoreEvidence} gives, in a fixed order: tokens carry them as a bit set
 * (tokens.ts), so append new ones at the end and never reorder.
 */
export const SCORE_REASONS = [
  'work',
  'layout_engine',
  'attested',
  'image_answer',
  'work_too_fast',
  'webdriver',
  'telemetry_missing',
  'headless_window',
  'ua_headless',
  'ua_automation',
  'ua_missing',
  'accept_language_missing',
  'referer_origin_mismatch',
  'velocity_high',
  'velocity_very_high',
  'failures',
  'no_interaction',
  'fast_submit',
  'no_layout_engine',
] as const;

export interface ScoreSignals {
  evidence: Evidence;
  /** What the widget reported; undefined when nothing was sent (scored as the worst case). */
  telemetry?: Telemetry;
  /** Whether the environment proof (boxes and text) was answered right. */
  envOk: boolean;
  /** The redeemed work and how long after issue it came back. */
  work?: { size: WorkSize; elapsedMs: number };
  /** A Private Access Token was redeemed for this challenge. */
  attested?: boolean;
  /** v1: the image was read right. */
  imageAnswer?: boolean;
}

export interface RiskScore {
  score: number;
  reasons: string[];
}

/** Attempts per second beyond any browser: 16 workers at twice this machine's 10,000 a second each (walk.wat). */
export const BROWSER_MAX_RATE = 320_000;
/** Without a right environment proof the score is capped here: what a program without a browser engine can reach. */
export const NO_ENGINE_CAP = 0.3;
/** v2: a score at or above this passes after the invisible work; below, the image challenge. */
export const PASS_THRESHOLD = 0.5;
/** v2: before any work, a score (assuming work and environment proof) below this goes to the image at once. */
export const DIRECT_CHALLENGE_THRESHOLD = 0.3;

/** Whether the reported window is a headless browser's: no frame around the page, the screen exactly the window. */
function headlessWindow(t: Telemetry): boolean {
  const w = t.window;
  if (!w) return false;
  const [ow, oh] = w.outer;
  return ow === w.inner[0] && oh === w.inner[1] && ow === w.screen[0] && oh === w.screen[1];
}

/** Scores `signals` by the table above. Pure and deterministic. */
export function scoreEvidence(s: ScoreSignals): RiskScore {
  let points = 10;
  const reasons: string[] = [];
  const apply = (reason: string, delta: number) => {
    points += delta;
    reasons.push(reason);
  };
  const ev = s.evidence;
  if (s.work) {
    apply('work', 20);
    if (s.work.elapsedMs * BROWSER_MAX_RATE < expectedAttempts(s.work.size) * 1000) apply('work_too_fast', -30);
  }
  if (s.envOk) apply('layout_engine', 60);
  if (s.attested) apply('attested', 20);
  const t = s.telemetry;
  if (!t) apply('telemetry_missing', -60);
  else {
    if (t.webdriver === true) apply('webdriver', -60);
    if (headlessWindow(t)) apply('headless_window', -40);
    if (t.interactions === 0) apply('no_interaction', -10);
    if (typeof t.timeOnPageMs === 'number' && t.timeOnPageMs < 1500) apply('fast_submit', -10);
  }
  if (ev.uaHeadless) apply('ua_headless', -40);
  if (ev.uaMissing) apply('ua_missing', -30);
  else if (ev.uaAutomation) apply('ua_automation', -40);
  if (ev.acceptLanguageMissing) apply('accept_language_missing', -10);
  if (ev.refererMismatch) apply('referer_origin_mismatch', -15);
  const excess = Math.max(ev.clientRate / PACE.client, ev.networkRate / PACE.network, ev.wideRate / PACE.wide);
  if (excess > 16) apply('velocity_very_high', -40);
  else if (excess > 4) apply('velocity_high', -20);
  if (ev.failures >= 2) apply('failures', -10);
  // A person whose evidence fell short (a busy network, say) makes it up by reading the image.
  if (s.imageAnswer && s.envOk && points < 90) apply('image_answer', Math.min(20, 90 - points));
  let score = Math.min(100, Math.max(0, points)) / 100;
  if (!s.envOk) {
    reasons.push('no_layout_engine');
    score = Math.min(score, NO_ENGINE_CAP);
  }
  return { score, reasons };
}
