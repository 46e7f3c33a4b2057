import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { checkWork, issueWork, openTicket, solveWork, spendWork, WORK_TTL_MS } from '../../src/captcha/work.ts';
import { subkey } from '../../src/captcha/subkeys.ts';
import { extraBits, observe, workSize, PACE, type Evidence } from '../../src/captcha/evidence.ts';
import { checkEnv, envAnswer, envProgram, ENV_VERSION } from '../../src/captcha/env-proof.ts';
import { scoreEvidence } from '../../src/captcha/risk.ts';
import { openStores } from '../../src/stores/index.ts';

const key = randomBytes(32);
const now = 1_800_000_000_000;
const issue = (over: Partial<Parameters<typeof issueWork>[1]> = {}) =>
  issueWork(key, { site: 'sk_a', purpose: 'v3', bind: '', size: { count: 8, bits: 6 }, now, ...over });
const expect_ = { site: 'sk_a', purposes: ['v3'] as const, bind: '', now: now + 1000 };

describe('work tickets', () => {
  it('accepts a right proof once', async () => {
    const view = issue();
    const proof = { ticket: view.ticket, solutions: solveWork(view).solutions };
    const checked = checkWork(key, proof, expect_);
    expect(checked).toMatchObject({ ok: true, elapsedMs: 1000 });
    const spent = new Set<string>();
    const redeem = async (id: string) => !spent.has(id) && !!spent.add(id);
    if (!checked.ok) throw new Error('expected a valid proof');
    expect(await spendWork(redeem, checked.claims, now)).toBe(true);
    expect(await spendWork(redeem, checked.claims, now)).toBe(false);
  });

  it('refuses a proof for another site, purpose or binding, an expired one and a forged one', () => {
    const view = issue({ bind: 'challenge-1', purpose: 'v1' });
    const proof = { ticket: view.ticket, solutions: solveWork(view).solutions };
    const base = { ...expect_, purposes: ['v1'] as const, bind: 'challenge-1' };
    expect(checkWork(key, proof, base).ok).toBe(true);
    expect(checkWork(key, proof, { ...base, site: 'sk_b' })).toEqual({ ok: false, reason: 'wrong-site' });
    expect(checkWork(key, proof, { ...base, purposes: ['v3'] })).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(checkWork(key, proof, { ...base, bind: 'challenge-2' })).toEqual({ ok: false, reason: 'wrong-binding' });
    expect(checkWork(key, proof, { ...base, now: now + WORK_TTL_MS })).toEqual({ ok: false, reason: 'expired' });
    // Another key, or a payload changed to ask for less work, fails the signature.
    expect(checkWork(randomBytes(32), proof, base)).toEqual({ ok: false, reason: 'forged' });
    const [payload, mac] = view.ticket.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims[5] = 1;
    const cheaper = `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
    expect(checkWork(key, { ...proof, ticket: cheaper }, base)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses missing, short and wrong solutions', () => {
    const view = issue();
    const good = solveWork(view).solutions.split(',');
    expect(checkWork(key, { ticket: view.ticket }, expect_)).toEqual({ ok: false, reason: 'bad-solution' });
    expect(checkWork(key, { ticket: view.ticket, solutions: good.slice(1).join(',') }, expect_)).toEqual({
      ok: false,
      reason: 'bad-solution',
    });
    const bad = [...good];
    bad[3] = 'x1';
    expect(checkWork(key, { ticket: view.ticket, solutions: bad.join(',') }, expect_)).toEqual({
      ok: false,
      reason: 'bad-solution',
    });
  });
});

describe('environment proof', () => {
  it('is the same program for the same id and checks only its own answer', () => {
    const p = envProgram(key, 'abc');
    expect(envProgram(key, 'abc')).toEqual(p);
    expect(envProgram(key, 'abd')).not.toEqual(p);
    expect(checkEnv(key, 'abc', String(envAnswer(p)), ENV_VERSION)).toBe(true);
    expect(checkEnv(key, 'abd', String(envAnswer(p)), ENV_VERSION)).toBe(false);
    expect(checkEnv(key, 'abc', undefined, ENV_VERSION)).toBe(false);
  });

  it('checks a program with the version its ticket carries; tickets from before the field are version 0', () => {
    const view = issueWork(key, { site: 'sk', purpose: 'v2', bind: '', size: { count: 1, bits: 1 }, now: Date.now() });
    const opened = openTicket(key, view.ticket);
    expect(opened.ok && opened.claims.env).toBe(ENV_VERSION);
    // A ticket as issued before the version field: eleven fields, signed under the same key.
    const [payload] = view.ticket.split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    const oldPayload = Buffer.from(JSON.stringify(fields.slice(0, 11))).toString('base64url');
    const oldTicket = `${oldPayload}.${createHmac('sha256', subkey(key, 'work-ticket')).update(oldPayload).digest().subarray(0, 24).toString('base64url')}`;
    const old = openTicket(key, oldTicket);
    expect(old.ok && old.claims.env).toBe(0);
    // Each version draws its own program, and an answer checks only under its own.
    const v0 = envProgram(key, view.id, 0);
    const v1 = envProgram(key, view.id, 1);
    expect(v0).not.toEqual(v1);
    expect(checkEnv(key, view.id, envAnswer(v0), 0)).toBe(true);
    expect(checkEnv(key, view.id, envAnswer(v0), 1)).toBe(false);
    expect(checkEnv(key, view.id, envAnswer(v1), 1)).toBe(true);
    // A version the service never issued does not open, even when signed.
    const badPayload = Buffer.from(JSON.stringify([...fields.slice(0, 11), 7])).toString('base64url');
    const bad = `${badPayload}.${createHmac('sha256', subkey(key, 'work-ticket')).update(badPayload).digest().subarray(0, 24).toString('base64url')}`;
    expect(openTicket(key, bad)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('draws every op and argument over its whole range (version 1)', () => {
    const seen = new Map<number, { min: number[]; max: number[] }>();
    for (let i = 0; i < 3000; i++) {
      for (const op of envProgram(key, `id-${i}`, 1).ops) {
        const s = seen.get(op[0]) ?? { min: op.slice(), max: op.slice() };
        op.forEach((v, j) => {
          s.min[j] = Math.min(s.min[j], v);
          s.max[j] = Math.max(s.max[j], v);
        });
        seen.set(op[0], s);
      }
    }
    expect([...seen.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // op 0: width 10..400, padding 0..40, border 0..20; op 3: each channel 0..255.
    expect(seen.get(0)!.min.slice(1, 4)).toEqual([10, 0, 0]);
    expect(seen.get(0)!.max.slice(1, 4)).toEqual([400, 40, 20]);
    expect(seen.get(3)!.min.slice(1, 4)).toEqual([0, 0, 0]);
    expect(seen.get(3)!.max.slice(1, 4)).toEqual([255, 255, 255]);
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
    expect(workSize('default', null, calm)).toEqual({ count: 32, bits: 13 });
    expect(workSize('default', null, { ...calm, clientRate: PACE.client * 2 }).bits).toBe(14);
    expect(workSize('default', null, { ...calm, clientRate: PACE.client * 8 }).bits).toBe(16);
    expect(workSize('default', null, { ...calm, networkRate: 30 }).bits).toBe(15);
    expect(workSize('default', null, { ...calm, networkRate: 120 }).bits).toBe(17);
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
    expect(workSize('default', null, last!).bits).toBeGreaterThan(13);
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
    expect(workSize('default', null, spread).bits).toBe(16);
    // A busy site at its usual pace is no surge.
    expect(extraBits({ ...calm, siteRate: 600, siteBaseline: 580 }).reasons).toEqual([]);
  });

  it('sets explicit floors and levels', () => {
    expect(workSize('low', null, calm)).toEqual({ count: 16, bits: 12 });
    expect(workSize('high', null, calm)).toEqual({ count: 32, bits: 15 });
    expect(workSize('low', 22, calm)).toEqual({ count: 16, bits: 18 });
  });
});

describe('score from evidence', () => {
  const work = { size: { count: 32, bits: 13 }, elapsedMs: 900 };
  it('reaches 0.9 only with the environment proof and the work, and never above 0.1 without the proof', () => {
    expect(
      scoreEvidence({ evidence: calm, envOk: true, work, telemetry: { interactions: 3, timeOnPageMs: 5000 } }).score,
    ).toBe(0.9);
    expect(
      scoreEvidence({ evidence: calm, envOk: false, work, telemetry: { interactions: 3, timeOnPageMs: 5000 } }).score,
    ).toBe(0.1);
  });
  it('puts headless Chromium as launched by default at 0.3 or below', () => {
    expect(
      scoreEvidence({ evidence: calm, envOk: true, work, telemetry: { webdriver: true } }).score,
    ).toBeLessThanOrEqual(0.3);
    expect(scoreEvidence({ evidence: { ...calm, uaHeadless: true }, envOk: true, work }).score).toBeLessThanOrEqual(
      0.5,
    );
  });
  it('notices work done faster than a browser can', () => {
    expect(
      scoreEvidence({ evidence: calm, envOk: true, work: { size: { count: 32, bits: 20 }, elapsedMs: 10 } }).reasons,
    ).toContain('work_too_fast');
  });
});
