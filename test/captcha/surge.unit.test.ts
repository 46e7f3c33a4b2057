/**
 * Surge prices that do not fade: an hour of 120 challenges a minute, each from a /16 the site
 * never saw, simulated minute by minute on the memory stores with an injected clock. The
 * attack keeps paying at least 8 times the calm price (3 extra bits) after 60 minutes, not only
 * in its first minutes; the site's usual visitors (networks it saw yesterday, at their steady
 * rate) pay the calm price all along, and a calm site stays calm.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { openStores, type Stores } from '../../src/stores/index.ts';
import { memoryCounterStore } from '../../src/stores/counter-store.ts';
import { extraBits, observe, packEvidence, unpackEvidence, type Evidence } from '../../src/captcha/evidence.ts';
import { cappedBaseline } from '../../src/captcha/surge.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Noon (UTC) of a day: the calm past starts two days before, so the site has a steady day behind it. */
const ATTACK_START = 20_000 * DAY + 12 * HOUR;
const ua = { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36', acceptLanguage: 'en' };

/** Memory stores whose counters run on the simulated clock. */
async function simulated(): Promise<{ stores: Stores; clock: { now: number }; close: () => Promise<void> }> {
  const clock = { now: 0 };
  const base = await openStores({ keyPrefix: `surge${randomBytes(4).toString('hex')}:` });
  const stores = { ...base, counters: memoryCounterStore(() => clock.now) };
  return { stores, clock, close: () => base.close() };
}

/** The site's usual visitors: 100 /16s it sees every day (172.0-99.x.x). */
const usual = (i: number) => `172.${i % 100}.${(i >> 7) & 255}.${1 + (i % 250)}`;
/** A /16 no one has used before (11.0.x.x upwards, never 172.x). */
let fresh = 0;
const freshNetwork = () => {
  const n = fresh++;
  expect(n).toBeLessThan(40_000);
  return `${11 + (n >> 8)}.${n & 255}.7.7`;
};

/**
 * The site's ordinary traffic from `from` to `to`: 5 challenges a minute from its usual
 * networks and 1 a minute from a network it has never seen (newcomers are usual too).
 */
async function calmTraffic(stores: Stores, clock: { now: number }, site: string, from: number, to: number) {
  let i = 0;
  for (let t = from; t < to; t += 10_000, i++) {
    clock.now = t;
    await observe(stores, site, { ip: i % 6 === 5 ? freshNetwork() : usual(i), ...ua }, t);
  }
}

describe('surge prices', () => {
  it('keep 120 a minute from new /16s at 8x the calm price after an hour; usual visitors pay the calm price', async () => {
    const { stores, clock, close } = await simulated();
    await calmTraffic(stores, clock, 'sk_attacked', ATTACK_START - 50 * HOUR, ATTACK_START);
    const figures: Record<string, { attack: number; attackReasons: string; usual: number }> = {};
    let usualI = 0;
    for (let minute = 1; minute <= 61; minute++) {
      let attack: Evidence | undefined;
      for (let j = 0; j < 120; j++) {
        const t = ATTACK_START + (minute - 1) * MINUTE + j * 500;
        clock.now = t;
        attack = await observe(stores, 'sk_attacked', { ip: freshNetwork(), ...ua }, t);
        // The usual visitors go on: 5 a minute from seen networks, 1 from a new one.
        if (j % 20 === 10) {
          const ip = j === 110 ? freshNetwork() : usual(usualI++);
          const visitor = await observe(stores, 'sk_attacked', { ip, ...ua }, t);
          if (j !== 110) expect(extraBits(visitor).bits, `usual visitor, minute ${minute}`).toBe(0);
        }
      }
      const bits = extraBits(attack!);
      expect(bits.bits, `minute ${minute}: ${bits.reasons.join(' ')}`).toBeGreaterThanOrEqual(3);
      if ([1, 10, 60].includes(minute)) {
        const visitor = await observe(stores, 'sk_attacked', { ip: usual(usualI++), ...ua }, clock.now);
        figures[`minute ${minute}`] = {
          attack: 2 ** bits.bits,
          attackReasons: bits.reasons.join(' '),
          usual: 2 ** extraBits(visitor).bits,
        };
      }
    }
    console.info('price multiple of the calm price, 120/min from new /16s:', figures);
    expect(figures['minute 60'].attack).toBeGreaterThanOrEqual(8);
    expect(figures['minute 60'].usual).toBe(1);
    await close();
  });

  it('leaves a calm site calm: its usual visitors and its usual newcomers pay the calm price', async () => {
    const { stores, clock, close } = await simulated();
    await calmTraffic(stores, clock, 'sk_calm', ATTACK_START - 50 * HOUR, ATTACK_START);
    for (let t = ATTACK_START, i = 0; t < ATTACK_START + HOUR; t += 10_000, i++) {
      clock.now = t;
      const ip = i % 6 === 5 ? freshNetwork() : usual(i);
      const ev = await observe(stores, 'sk_calm', { ip, ...ua }, t);
      expect(extraBits(ev), `${ip} at ${(t - ATTACK_START) / MINUTE} min`).toEqual({ bits: 0, reasons: [] });
      expect(ev.newNetwork).toBe(ip.startsWith('172.') ? false : true);
      expect(ev.siteBaseline).toBeCloseTo(6, 0);
      expect(ev.newNetworkBaseline).toBeCloseTo(1, 0);
    }
    await close();
  });

  it('prices a surge from seen networks for everyone (the new-network rule only adds)', async () => {
    const { stores, clock, close } = await simulated();
    await calmTraffic(stores, clock, 'sk_seen', ATTACK_START - 50 * HOUR, ATTACK_START);
    let last: Evidence | undefined;
    // 100 in a minute from the usual networks: a surge of seen networks, 100/15 -> 3 bits.
    for (let j = 0; j < 100; j++) {
      clock.now = ATTACK_START + j * 600;
      last = await observe(stores, 'sk_seen', { ip: usual(j * 7), ...ua }, clock.now);
    }
    expect(last!.newNetwork).toBe(false);
    expect(extraBits(last!).reasons).toEqual(['site_surge+3']);
    await close();
  });
});

describe('the capped baseline', () => {
  it('is the mean of the hours for a steady site, and ignores the hours before its first', () => {
    expect(cappedBaseline(Array(24).fill(600))).toBe(10);
    expect(cappedBaseline([0, 0, 0, ...Array(21).fill(600)])).toBe(10);
    expect(cappedBaseline(Array(24).fill(0))).toBe(0);
  });

  it('grows at most 2x an hour above the floor, so a surge hour barely moves a day of history', () => {
    // 23 calm hours at 5 a minute, then one hour at 120 a minute: counted as 30 a minute at most.
    expect(cappedBaseline([...Array(23).fill(300), 7200])).toBeCloseTo((23 * 300 + 1800) / 24 / 60, 9);
    // A new busy site (100 a minute) ramps up from the floor: 30, 45, 60 … a minute.
    expect(cappedBaseline([6000])).toBe(30);
    expect(cappedBaseline([6000, 6000])).toBe(45);
    expect(cappedBaseline([6000, 6000, 6000])).toBe(60);
  });
});

describe('packed evidence', () => {
  it('appends the new-network fields and reads tickets packed before them as seen', () => {
    const ev = unpackEvidence([1, 2, 3, 0, 0, 0, 4, 5]);
    expect(ev).toMatchObject({ siteBaseline: 5, newNetwork: false, newNetworkRate: 0, newNetworkBaseline: 0 });
    const packed = packEvidence({ ...ev, newNetwork: true, newNetworkRate: 120.04, newNetworkBaseline: 1.26 });
    expect(packed.slice(0, 8)).toEqual([1, 2, 3, 0, 0, 0, 4, 5]);
    expect(unpackEvidence(packed)).toMatchObject({ newNetwork: true, newNetworkRate: 120, newNetworkBaseline: 1.3 });
  });
});
