import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryChallengeStore, TtlMap } from '../../src/stores/challenge-store.ts';
import { memoryCounterStore } from '../../src/stores/counter-store.ts';
import { memorySpentTokenStore } from '../../src/stores/spent-token-store.ts';
import { windowSweeper } from '../../src/stores/window-sweeper.ts';

/** Memory-only behaviour the contract cannot pin down exactly: boundaries, sweeping, bounds. */
describe('TtlMap', () => {
  it('expires exactly at the TTL by the injected clock', () => {
    let t = 0;
    const map = new TtlMap<string>({ now: () => t });
    map.set('a', 'x', 1000);
    t = 999;
    expect(map.get('a')).toBe('x');
    t = 1000;
    expect(map.get('a')).toBeUndefined();
  });

  it('replace keeps the expiry; set renews it', () => {
    let t = 0;
    const map = new TtlMap<string>({ now: () => t });
    map.set('a', 'x', 1000);
    t = 400;
    expect(map.replace('a', 'y')).toBe(true);
    t = 999;
    expect(map.get('a')).toBe('y');
    t = 1000;
    expect(map.replace('a', 'z')).toBe(false);
    map.set('b', 'x', 1000);
    t = 1999;
    expect(map.get('b')).toBe('x');
  });

  it('sweeps expired entries on writes without reading them, a few per write', () => {
    let t = 0;
    const map = new TtlMap<number>({ now: () => t });
    for (let i = 0; i < 50; i++) map.set(`k${i}`, i, 50);
    t = 200;
    map.set('fresh0', 0, 1000);
    // One write examines a few entries, not the whole map.
    expect(map.size).toBeGreaterThan(40);
    for (let i = 1; i < 20; i++) map.set(`fresh${i}`, i, 1000);
    expect(map.size).toBe(20);
    expect(map.get('fresh0')).toBe(0);
  });

  it('keeps sweeping across passes as entries come and go', () => {
    let t = 0;
    const map = new TtlMap<number>({ now: () => t });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 100; i++) map.set(`r${round}-${i}`, i, 10);
      t += 20; // this round's entries expire; the next round's writes sweep them
    }
    for (let i = 0; i < 100; i++) map.set(`last${i}`, i, 1000);
    expect(map.size).toBe(100);
  });

  it('evicts the oldest entries beyond maxEntries', () => {
    const map = new TtlMap<number>({ now: () => 0, maxEntries: 3 });
    for (let i = 0; i < 5; i++) map.set(`k${i}`, i, 1000);
    expect(map.size).toBe(3);
    expect(map.get('k0')).toBeUndefined();
    expect(map.get('k1')).toBeUndefined();
    expect(map.get('k4')).toBe(4);
  });

  it('evicts past maxEntries in batches, down to 1% below the cap, oldest first', () => {
    const map = new TtlMap<number>({ now: () => 0, maxEntries: 1000 });
    for (let i = 0; i < 1000; i++) map.set(`k${i}`, i, 1000);
    expect(map.size).toBe(1000);
    map.set('over', 1, 1000);
    expect(map.size).toBe(990);
    expect(map.get('k10')).toBeUndefined();
    expect(map.get('k11')).toBe(11);
    expect(map.get('over')).toBe(1);
    // The next nine inserts fit without evicting anything.
    for (let i = 0; i < 9; i++) map.set(`n${i}`, i, 1000);
    expect(map.size).toBe(999);
    expect(map.get('k11')).toBe(11);
  });

  it('evicts expired entries as the sweep reaches them, so a full map holds live ones', () => {
    let t = 0;
    const map = new TtlMap<number>({ now: () => t, maxEntries: 100 });
    for (let i = 0; i < 50; i++) map.set(`short${i}`, i, 10);
    for (let i = 0; i < 50; i++) map.set(`live${i}`, i, 10_000);
    t = 100;
    // 40 writes examine 160 entries: at least one whole pass over the map, wherever it stood.
    for (let i = 0; i < 40; i++) map.set(`more${i}`, i, 10_000);
    expect(map.size).toBe(90);
    expect(map.get('live0')).toBe(0);
  });
});

describe('memory stores with the default clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('follow vi fake timers', async () => {
    vi.useFakeTimers();
    const challenges = memoryChallengeStore<{ v: number }>();
    const counters = memoryCounterStore();
    const spent = memorySpentTokenStore(counters);
    await challenges.create('a', { v: 1 }, 5000);
    expect(await spent.redeem('t', 5000)).toBe(true);
    expect(await counters.hit('c', 5000)).toBe(1);
    vi.advanceTimersByTime(4999);
    expect(await challenges.get('a')).toEqual({ v: 1 });
    expect(await spent.redeem('t', 5000)).toBe(false);
    expect(await counters.hit('c', 5000)).toBe(2);
    vi.advanceTimersByTime(1);
    expect(await challenges.get('a')).toBeNull();
    expect(await spent.redeem('t', 5000)).toBe(true);
    expect(await counters.hit('c', 5000)).toBe(1);
  });

  it('redeems a token exactly once among concurrent calls', async () => {
    const spent = memorySpentTokenStore(memoryCounterStore());
    const redeemed = await Promise.all([spent.redeem('t', 5000), spent.redeem('t', 5000), spent.redeem('t', 5000)]);
    expect(redeemed.filter(Boolean)).toHaveLength(1);
  });

  it('reject non-positive TTLs', async () => {
    await expect(memoryChallengeStore().create('a', {}, 0)).rejects.toThrow(RangeError);
    await expect(memorySpentTokenStore(memoryCounterStore()).redeem('a', Number.NaN)).rejects.toThrow(RangeError);
  });
});

describe('windowSweeper (koa-ratelimit memory windows)', () => {
  it('drops ended windows a slice per tick, resuming where it stopped', () => {
    let t = 0;
    const windows = new Map<string, unknown>();
    for (let i = 0; i < 30; i++) windows.set(`ended${i}`, { reset: 1 });
    for (let i = 0; i < 10; i++) windows.set(`open${i}`, { reset: 100 });
    const sweeper = windowSweeper(windows, { perTick: 10, now: () => t });
    t = 2000;
    sweeper.tick();
    expect(windows.size).toBe(30);
    sweeper.tick();
    sweeper.tick();
    expect(windows.size).toBe(10);
    sweeper.tick(); // the open ones stay
    expect([...windows.keys()]).toEqual(Array.from({ length: 10 }, (_, i) => `open${i}`));
  });

  it('trims the oldest-started windows past the cap, down to 1% below it', () => {
    const windows = new Map<string, unknown>();
    for (let i = 0; i < 1200; i++) windows.set(`w${i}`, { reset: 10_000 });
    windowSweeper(windows, { maxEntries: 1000, now: () => 0 }).tick();
    expect(windows.size).toBe(990);
    expect(windows.has('w209')).toBe(false);
    expect(windows.has('w210')).toBe(true);
  });
});
