import type { Evidence, Telemetry } from './evidence.ts';
import { PACE } from './evidence.ts';
import { judgePage, PAGE_REASONS, type PageReason, type RequestFacts } from './page-signals.ts';
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
 * | `hosting_network` | the client's address is in a hosting or cloud network (src/net/hosting.ts) |      -0.60 |
 * | `browser_rate_high` | one browser (its page's report) on one network past {@link PACE}.browserHour an hour on the site |  -0.20 |
 * | `browser_rate_very_high` | past 4 × that (instead of browser_rate_high)                     |      -0.40 |
 * | page signals      | what the page showed (page-signals.ts), each below                  |            |
 * | `page_signals_missing` | telemetry without the page's report (the widget always sends it) |   -0.60 |
 * | `devtools_protocol` | a DevTools protocol client serialised the page's console message |      -0.60 |
 * | `automation_globals` | a framework's globals in the page (chromedriver's `cdc_`, …)    |      -0.60 |
 * | `no_pointer`      | no pointing device at all (headless Chromium)                       |      -0.40 |
 * | `natives_tampered` | natives patched in the page (a stealth script's)                   |      -0.40 |
 * | `ua_overridden`   | the client hints' full version list empty or of another version than the User-Agent |  -0.40 |
 * | `ua_mismatch`     | the page's User-Agent is not the request's                          |      -0.40 |
 * | `permission_mismatch` | Notification.permission disagrees with the Permissions API      |      -0.30 |
 * | `client_hints_mismatch` | Sec-CH-UA / Sec-CH-UA-Platform disagree with the page's, or are missing from a Chromium over TLS | -0.30 |
 * | `webgl_spoofed`   | a desktop Chromium whose WebGL renderer is not ANGLE's             |      -0.30 |
 * | `window_impossible` | the page area larger than its window at a density of 1          |      -0.30 |
 * | `language_mismatch` | the page's language is not the Accept-Language's                 |      -0.20 |
 *
 * `image_answer` makes up only for what the network and the pace took (a person behind a VPN
 * or a busy network): never for a sign of automation, which OCR reading the image does not undo.
 *
 * The reasons applied travel in the token; siteverify shows them (`reasons`), so a site sees
 * why a token scored as it did.
 */

/**
 * Every reason {@link scoreEvidence} gives, in a fixed order: tokens carry them as a bit set
 * (tokens.ts, at most 53 of them), so append new ones at the end and never reorder.
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
  ...PAGE_REASONS,
  'hosting_network',
  'browser_rate_high',
  'browser_rate_very_high',
] as const;

/** What each page signal costs a score, in hundredths (the table above). */
const PAGE_WEIGHTS: Record<PageReason, number> = {
  page_signals_missing: -60,
  devtools_protocol: -60,
  automation_globals: -60,
  no_pointer: -40,
  natives_tampered: -40,
  ua_overridden: -40,
  ua_mismatch: -40,
  permission_mismatch: -30,
  client_hints_mismatch: -30,
  webgl_spoofed: -30,
  window_impossible: -30,
  language_mismatch: -20,
};

/** Reasons a right image answer makes up for: the network and the pace, not signs of automation. */
const COMPENSABLE: ReadonlySet<string> = new Set([
  'hosting_network',
  'velocity_high',
  'velocity_very_high',
  'failures',
  'no_interaction',
  'fast_submit',
  'accept_language_missing',
  'referer_origin_mismatch',
  'browser_rate_high',
]);

/** Whether an image read right may lift a score with these reasons (none of them a sign of automation). */
export function imageMayLift(reasons: readonly string[]): boolean {
  return reasons.every((r) => COMPENSABLE.has(r) || r === 'work' || r === 'layout_engine' || r === 'attested');
}

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
  /** The request that carried the telemetry (its headers are compared with the page's report). */
  request?: RequestFacts;
  /** A missing page report costs nothing (the managed flow's first guess: the report comes again with the proof). */
  pageOptional?: boolean;
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
    for (const reason of judgePage(t, s.request))
      if (!(s.pageOptional && reason === 'page_signals_missing')) apply(reason, PAGE_WEIGHTS[reason]);
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
  if (ev.hosting) apply('hosting_network', -60);
  const browserRate = ev.browserRate ?? 0;
  if (browserRate > 4 * PACE.browserHour) apply('browser_rate_very_high', -40);
  else if (browserRate > PACE.browserHour) apply('browser_rate_high', -20);
  // A person whose evidence fell short (a VPN, a busy network) makes it up by reading the image.
  if (s.imageAnswer && s.envOk && points < 90 && imageMayLift(reasons))
    apply('image_answer', Math.min(20, 90 - points));
  let score = Math.min(100, Math.max(0, points)) / 100;
  if (!s.envOk) {
    reasons.push('no_layout_engine');
    score = Math.min(score, NO_ENGINE_CAP);
  }
  return { score, reasons };
}
