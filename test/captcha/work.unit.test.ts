import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { issueWork, openTicket, redeemWork, solutionsPass, WORK_TTL_MS } from '../../src/captcha/work.ts';
import { formatAnswer, solveWork } from '../helpers/solve.ts';
import { subkey } from '../../src/captcha/subkeys.ts';
import { extraBits, observe, workSize, PACE, type Evidence } from '../../src/captcha/evidence.ts';
import {
  checkEnv,
  generateText,
  textValueCount,
  UNCHECKED,
  openValues,
  sealValues,
  type ProbeBox,
} from '../../src/captcha/env-proof.ts';
import { createRng } from '../../src/captcha/render.ts';
import { PROBE_PROPERTIES } from '../../widget/env-probes.ts';
import { scoreEvidence } from '../../src/captcha/risk.ts';
import { openStores } from '../../src/stores/index.ts';

const key = randomBytes(32);
const now = 1_800_000_000_000;
const issue = (over: Partial<Parameters<typeof issueWork>[1]> = {}) =>
  issueWork(key, { site: 'sk_a', purpose: 'v3', bind: '', size: { count: 8, bits: 6 }, now, ...over });
const expect_ = { site: 'sk_a', purposes: ['v3'] as const, bind: '', now: now + 1000 };

/** A spent-token set, and how often it was asked (each ask is before the attempts run). */
function spentSet() {
  const spent = new Set<string>();
  const store = { asked: 0, redeem: async (id: string) => (store.asked++, !spent.has(id) && !!spent.add(id)) };
  return store;
}

describe('work tickets', () => {
  it('accepts a right proof once', async () => {
    const view = issue();
    const proof = { ticket: view.ticket, solutions: solveWork(view).solutions };
    const store = spentSet();
    expect(await redeemWork(key, store.redeem, proof, expect_)).toMatchObject({ ok: true, elapsedMs: 1000 });
    expect(await redeemWork(key, store.redeem, proof, expect_)).toEqual({ ok: false, reason: 'replayed' });
  });

  it('refuses a proof for another site, purpose, binding, action or cdata, an expired one and a forged one, before spending it', async () => {
    const view = issue({ bind: 'challenge-1', purpose: 'v1', action: 'login', cdata: null });
    const proof = { ticket: view.ticket, solutions: solveWork(view).solutions };
    const base = { ...expect_, purposes: ['v1'] as const, bind: 'challenge-1' };
    const store = spentSet();
    const check = (over: Partial<Parameters<typeof redeemWork>[3]>, p: typeof proof = proof, k = key) =>
      redeemWork(k, store.redeem, p, { ...base, ...over });
    expect(await check({ site: 'sk_b' })).toEqual({ ok: false, reason: 'wrong-site' });
    expect(await check({ purposes: ['v3'] })).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(await check({ bind: 'challenge-2' })).toEqual({ ok: false, reason: 'wrong-binding' });
    expect(await check({ action: 'signup' })).toEqual({ ok: false, reason: 'wrong-binding' });
    expect(await check({ cdata: 'x' })).toEqual({ ok: false, reason: 'wrong-binding' });
    expect(await check({ now: now + WORK_TTL_MS })).toEqual({ ok: false, reason: 'expired' });
    // Another key, or a payload changed to ask for less work, fails the signature.
    expect(await check({}, proof, randomBytes(32))).toEqual({ ok: false, reason: 'forged' });
    const [payload, mac] = view.ticket.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims[5] = 1;
    const cheaper = `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
    expect(await check({}, { ...proof, ticket: cheaper })).toEqual({ ok: false, reason: 'forged' });
    expect(store.asked).toBe(0);
    expect(await check({ action: 'login' })).toMatchObject({ ok: true });
  });

  it('refuses missing, short, out-of-range and wrong solutions; a wrong one spends its ticket', async () => {
    const view = issue();
    const good = solveWork(view).solutions.split(',');
    const store = spentSet();
    const check = (solutions?: string) => redeemWork(key, store.redeem, { ticket: view.ticket, solutions }, expect_);
    expect(await check()).toEqual({ ok: false, reason: 'bad-solution' });
    expect(await check(good.slice(1).join(','))).toEqual({ ok: false, reason: 'bad-solution' });
    expect(await check([...good.slice(1), '4294967296'].join(','))).toEqual({ ok: false, reason: 'bad-solution' });
    expect(await check([...good.slice(1), 'x1'].join(','))).toEqual({ ok: false, reason: 'bad-solution' });
    expect(store.asked).toBe(0);
    // Shaped right but wrong: the ticket is spent first, so its attempts run once.
    // A nonce one up may solve too (one in 2^bits), so take the first one up that does not.
    const wrong = good.map(Number);
    do wrong[3]++;
    while (solutionsPass(view, wrong));
    const first = await check(wrong.join(','));
    expect(first.ok || first.reason).toBe('bad-solution');
    expect(await check(good.join(','))).toEqual({ ok: false, reason: 'replayed' });
    expect(store.asked).toBe(2);
  });
});

describe('environment proof', () => {
  it('seals the reference values so only the key opens them, and checks each word’s line exactly', () => {
    const values = [0, 0, 1, UNCHECKED, 2, 2];
    const sealed = sealValues(key, values);
    expect(openValues(key, sealed)).toEqual(values);
    expect(openValues(randomBytes(32), sealed)).toBeUndefined();
    const tampered = Buffer.from(sealed, 'base64url');
    tampered[14] ^= 1;
    expect(openValues(key, tampered.toString('base64url'))).toBeUndefined();
    expect(checkEnv(key, sealed, formatAnswer(values))).toBe(true);
    // The unstable word may land on either line; every other word exactly.
    expect(checkEnv(key, sealed, '0,0,1,2,2,2')).toBe(true);
    expect(checkEnv(key, sealed, '0,0,1,1,2,3')).toBe(false);
    expect(checkEnv(key, sealed, '0,1,1,1,2,2')).toBe(false);
    expect(checkEnv(key, sealed, '0,0,1,1,2')).toBe(false);
    expect(checkEnv(key, sealed, undefined)).toBe(false);
    expect(checkEnv(key, sealed, '0,0,1,1,2,2,')).toBe(false);
    expect(checkEnv(key, sealed, `${'1,'.repeat(5000)}1`)).toBe(false);
    // A ticket without a paragraph proves nothing, whatever the answer; nor one with no word checked.
    expect(checkEnv(key, null, '')).toBe(false);
    expect(checkEnv(key, sealValues(key, [UNCHECKED, UNCHECKED]), '0,0')).toBe(false);
  });

  it('tickets carry the sealed values; tickets from before layouts carry none', () => {
    const sealed = sealValues(key, [0, 0, 1]);
    const view = issueWork(key, {
      site: 'sk',
      purpose: 'v2',
      bind: '',
      size: { count: 1, bits: 1 },
      now: Date.now(),
      env: sealed,
    });
    const opened = openTicket(key, view.ticket);
    expect(opened.ok && opened.claims.env).toBe(sealed);
    // A ticket as issued before layouts: a version number in the last field, signed under the same key.
    const [payload] = view.ticket.split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    const oldPayload = Buffer.from(JSON.stringify([...fields.slice(0, 11), 1])).toString('base64url');
    const oldTicket = `${oldPayload}.${createHmac('sha256', subkey(key, 'work-ticket')).update(oldPayload).digest().subarray(0, 24).toString('base64url')}`;
    const old = openTicket(key, oldTicket);
    expect(old.ok && old.claims.env).toBe(null);
  });

  it('draws paragraphs from the properties the widget applies, with floats, inline blocks and words', () => {
    const rng = createRng(randomBytes(16));
    const used = new Set<string>();
    const walk = (box: ProbeBox) => {
      for (const prop of Object.keys(box.s)) used.add(prop);
      box.c?.forEach(walk);
    };
    for (let i = 0; i < 300; i++) {
      const text = generateText(rng);
      walk(text);
      expect(textValueCount(text)).toBeGreaterThanOrEqual(6);
      expect(sealValues(key, new Array(textValueCount(text)).fill(9)).length).toBeLessThan(300);
    }
    for (const prop of used) expect(PROBE_PROPERTIES.has(prop), prop).toBe(true);
    expect(used).toContain('float');
    expect(used).toContain('vertical-align');
  });
});

const calm: Evidence = {
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

describe('evidence sets the work', () => {
  it('adds one bit per doubling of the rate above a person’s pace, per client and per network', () => {
    expect(workSize('default', null, calm)).toEqual({ count: 8, bits: 9 });
    expect(workSize('default', null, { ...calm, clientRate: PACE.client * 2 }).bits).toBe(10);
    expect(workSize('default', null, { ...calm, clientRate: PACE.client * 8 }).bits).toBe(12);
    expect(workSize('default', null, { ...calm, networkRate: 30 }).bits).toBe(11);
    expect(workSize('default', null, { ...calm, networkRate: 120 }).bits).toBe(13);
  });

  it('telemetry only raises the work', () => {
    expect(extraBits(calm, { webdriver: true }).bits).toBe(1);
    expect(extraBits(calm, { webdriver: false, interactions: 99, timeOnPageMs: 99_999 }).bits).toBe(0);
  });

  it('counts velocity per address, per IPv4 /24 and /16, per IPv6 /64 and /48', async () => {
    const stores = await openStores({ keyPrefix: `t${randomBytes(4).toString('hex')}:` });
    const ua = { userAgent: 'Mozilla/5.0 Chrome/140', acceptLanguage: 'en' };
    // Mid-window, so the previous (empty) window weighs nothing here.
    const now = 60_000 * 1000 + 30_000;
    let last: Evidence | undefined;
    for (let i = 1; i <= 30; i++) last = await observe(stores, 'sk_a', { ip: `198.51.100.${i}`, ...ua }, now);
    expect(last).toMatchObject({ clientRate: 1, networkRate: 30, wideRate: 30 });
    expect(workSize('default', null, last!).bits).toBeGreaterThan(9);
    for (let i = 1; i <= 60; i++)
      last = await observe(stores, 'sk_b', { ip: `2001:db8:7:${i.toString(16)}::1`, ...ua }, now);
    // A new /64 each time: each address is calm, its /48 is not.
    expect(last).toMatchObject({ clientRate: 1, networkRate: 1, wideRate: 60 });
    expect(extraBits(last!).reasons).toContain('velocity+1');
    await stores.close();
  });

  it('a window edge does not reset the price (sliding windows)', async () => {
    const stores = await openStores({ keyPrefix: `t${randomBytes(4).toString('hex')}:` });
    const ip = { ip: '203.0.113.5', userAgent: 'Mozilla/5.0 Chrome/140', acceptLanguage: 'en' };
    const windowStart = 60_000 * 2000;
    for (let i = 0; i < 24; i++) await observe(stores, 'sk_c', ip, windowStart + 59_000);
    // One second into the next fixed window: the 24 of a second ago still count (59/60 of them).
    const next = await observe(stores, 'sk_c', ip, windowStart + 60_000 + 1_000);
    expect(next.clientRate).toBeCloseTo(1 + 24 * (59 / 60), 5);
    expect(extraBits(next).reasons).toContain('velocity+3');
    await stores.close();
  });

  it('a site far above its own last hour costs every client more, wherever they come from', () => {
    // A site that saw a few challenges a minute, now 120 a minute from 120 networks.
    const spread: Evidence = { ...calm, siteRate: 120, siteBaseline: 3 + 120 / 60 };
    expect(extraBits(spread).reasons).toContain('site_surge+3');
    expect(workSize('default', null, spread).bits).toBe(12);
    // A busy site at its usual pace is no surge.
    expect(extraBits({ ...calm, siteRate: 600, siteBaseline: 580 }).reasons).toEqual([]);
  });

  it('sets explicit floors and levels', () => {
    expect(workSize('low', null, calm)).toEqual({ count: 8, bits: 7 });
    expect(workSize('high', null, calm)).toEqual({ count: 8, bits: 11 });
    // A floor of 2^24 hashes' worth: 2^12 attempts of the walk.
    expect(workSize('low', 24, calm)).toEqual({ count: 8, bits: 9 });
  });
});

describe('score from evidence', () => {
  const work = { size: { count: 8, bits: 9 }, elapsedMs: 900 };
  /** A person's page: nothing of automation in it (page-signals.ts). */
  const page = {
    cdp: false,
    automation: false,
    no_pointer: false,
    tampered: false,
    permission_mismatch: false,
    ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
    language: 'en-GB',
    brands: '',
    platform: '',
    ua_data: 'absent' as const,
    webgl: '',
  };
  const person = { interactions: 3, timeOnPageMs: 5000, page };
  it('reaches 0.9 only with the environment proof and the work, and never above 0.3 without the proof', () => {
    expect(scoreEvidence({ evidence: calm, envOk: true, work, telemetry: person })).toEqual({
      score: 0.9,
      reasons: ['work', 'layout_engine'],
    });
    const noEngine = scoreEvidence({ evidence: calm, envOk: false, work, telemetry: person });
    expect(noEngine.score).toBe(0.3);
    expect(noEngine.reasons).toContain('no_layout_engine');
    // Everything a program can claim without an engine: work, an image read, an attestation even.
    expect(
      scoreEvidence({ evidence: calm, envOk: false, work, telemetry: person, imageAnswer: true, attested: true }).score,
    ).toBeLessThanOrEqual(0.3);
  });
  it('scores missing telemetry as the worst case', () => {
    const missing = scoreEvidence({ evidence: calm, envOk: true, work });
    expect(missing.score).toBeLessThanOrEqual(0.3);
    expect(missing.reasons).toContain('telemetry_missing');
  });
  it('lifts an attested token and a right image answer beside the engine', () => {
    expect(scoreEvidence({ evidence: calm, envOk: true, work, telemetry: person, attested: true }).score).toBe(1);
    const busy = { ...calm, clientRate: 40 };
    expect(scoreEvidence({ evidence: busy, envOk: true, work, telemetry: person }).score).toBe(0.7);
    expect(scoreEvidence({ evidence: busy, envOk: true, work, telemetry: person, imageAnswer: true }).score).toBe(0.9);
  });
  it('puts headless Chromium as launched at 0.3 or below, and a frameless window at 0.5 or below', () => {
    expect(
      scoreEvidence({ evidence: calm, envOk: true, work, telemetry: { webdriver: true } }).score,
    ).toBeLessThanOrEqual(0.3);
    expect(
      scoreEvidence({ evidence: { ...calm, uaHeadless: true }, envOk: true, work, telemetry: person }).score,
    ).toBeLessThanOrEqual(0.5);
    const window = { outer: [1280, 720], inner: [1280, 720], screen: [1280, 720] } as const;
    const headless = scoreEvidence({ evidence: calm, envOk: true, work, telemetry: { ...person, window } });
    expect(headless.score).toBeLessThanOrEqual(0.5);
    expect(headless.reasons).toContain('headless_window');
    // A person's window: a frame around the page, or a screen larger than the window.
    for (const w of [
      { outer: [1200, 900], inner: [1200, 813], screen: [1280, 1024] },
      { outer: [1280, 720], inner: [1280, 720], screen: [1920, 1080] },
    ] as const) {
      expect(scoreEvidence({ evidence: calm, envOk: true, work, telemetry: { ...person, window: w } }).score).toBe(0.9);
    }
  });
  it('notices work done faster than a browser can', () => {
    expect(
      scoreEvidence({ evidence: calm, envOk: true, work: { size: { count: 8, bits: 11 }, elapsedMs: 10 } }).reasons,
    ).toContain('work_too_fast');
  });
});
