import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChallengeStore } from '../../src/stores/challenge-store.ts';
import type { CounterStore } from '../../src/stores/counter-store.ts';
import type { SpentTokenStore } from '../../src/stores/spent-token-store.ts';

/**
 * The one behavioural contract of the short-lived stores, run unchanged against every
 * implementation (memory with a fake clock, Redis with real short TTLs). Time only moves
 * through `elapse`, and only ever in the safe direction: "gone after" checks wait past the
 * TTL, "still there" checks happen well inside it.
 */
export interface StoreHarness {
  challenges<S extends object>(prefix: string): ChallengeStore<S>;
  spent(prefix: string): SpentTokenStore;
  counters(prefix: string): CounterStore;
  /** Lets `ms` pass: advances a fake clock, or sleeps for real. */
  elapse(ms: number): Promise<void>;
}

/** TTL used by expiry tests; long enough that "still present" checks cannot race it. */
const TTL = 600;

/** Registers the contract suite for one implementation. `setup` failing fails the suite. */
export function storeContract(
  name: string,
  setup: () => Promise<StoreHarness>,
  teardown: () => Promise<void> = async () => {},
): void {
  describe(`store contract: ${name}`, () => {
    let h: StoreHarness;
    const filePrefix = `test:${randomBytes(6).toString('hex')}:`;
    let n = 0;
    const prefix = () => `${filePrefix}${n++}:`;

    beforeAll(async () => {
      h = await setup();
    });
    afterAll(teardown);

    describe('ChallengeStore', () => {
      it('creates, reads back a copy, and rejects a taken id', async () => {
        const store = h.challenges<{ answer: string; attempts: number }>(prefix());
        const state = { answer: 'x', attempts: 0 };
        await store.create('a', state, 10_000);
        state.attempts = 99; // the store holds its own copy
        expect(await store.get('a')).toEqual({ answer: 'x', attempts: 0 });
        expect(await store.get('missing')).toBeNull();
        await expect(store.create('a', state, 10_000)).rejects.toThrow();
      });

      it('updates atomically, deletes when fn returns null, skips fn for a missing id', async () => {
        const store = h.challenges<{ n: number }>(prefix());
        await store.create('a', { n: 1 }, 10_000);
        expect(await store.update('a', (s) => ({ n: s.n + 1 }))).toEqual({ n: 2 });
        expect(await store.get('a')).toEqual({ n: 2 });
        expect(await store.update('a', () => null)).toBeNull();
        expect(await store.get('a')).toBeNull();
        let called = false;
        expect(await store.update('a', (s) => ((called = true), s))).toBeNull();
        expect(called).toBe(false);
      });

      it('loses no update under concurrency', async () => {
        const store = h.challenges<{ attemptsLeft: number }>(prefix());
        const k = 25;
        await store.create('c', { attemptsLeft: k }, 30_000);
        const results = await Promise.all(
          Array.from({ length: k }, () => store.update('c', (s) => ({ attemptsLeft: s.attemptsLeft - 1 }))),
        );
        expect((await store.get('c'))?.attemptsLeft).toBe(0);
        // every caller saw a distinct step
        expect(results.map((r) => r?.attemptsLeft).sort((a, b) => a! - b!)).toEqual(
          Array.from({ length: k }, (_, i) => i),
        );
      });

      it('deletes exactly once under concurrency', async () => {
        const store = h.challenges<{ v: number }>(prefix());
        await store.create('d', { v: 1 }, 10_000);
        const results = await Promise.all(Array.from({ length: 50 }, () => store.delete('d')));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('d')).toBeNull();
        expect(await store.delete('d')).toBe(false);
      });

      it('expires entries', async () => {
        const store = h.challenges<{ v: number }>(prefix());
        await store.create('e', { v: 1 }, TTL);
        expect(await store.get('e')).toEqual({ v: 1 });
        await h.elapse(TTL + 100);
        expect(await store.get('e')).toBeNull();
        expect(await store.update('e', (s) => s)).toBeNull();
        expect(await store.delete('e')).toBe(false);
      });

      it('keeps the remaining TTL across update', async () => {
        const store = h.challenges<{ v: number }>(prefix());
        await store.create('t', { v: 1 }, TTL);
        await h.elapse(TTL / 2);
        expect(await store.update('t', (s) => ({ v: s.v + 1 }))).toEqual({ v: 2 });
        await h.elapse(TTL / 2 + 100); // past the original expiry, well before a reset one
        expect(await store.get('t')).toBeNull();
      });

      it('isolates prefixes', async () => {
        const a = h.challenges<{ v: number }>(prefix());
        const b = h.challenges<{ v: number }>(prefix());
        await a.create('same', { v: 1 }, 10_000);
        expect(await b.get('same')).toBeNull();
        await b.create('same', { v: 2 }, 10_000);
        expect(await a.get('same')).toEqual({ v: 1 });
      });
    });

    describe('SpentTokenStore', () => {
      it('redeems an id exactly once among 50 concurrent calls', async () => {
        const store = h.spent(prefix());
        const results = await Promise.all(Array.from({ length: 50 }, () => store.redeem('tok', 10_000)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.redeem('tok', 10_000)).toBe(false);
        expect(await store.redeem('other', 10_000)).toBe(true);
      });

      it('forgets a spent mark after its TTL', async () => {
        const store = h.spent(prefix());
        expect(await store.redeem('t', TTL)).toBe(true);
        expect(await store.redeem('t', TTL)).toBe(false);
        await h.elapse(TTL + 100);
        expect(await store.redeem('t', TTL)).toBe(true);
      });

      it('remembers the first verdict per key until it expires', async () => {
        const store = h.spent(prefix());
        expect(await store.recallVerdict('k')).toBeNull();
        await store.rememberVerdict('k', { success: true, hostname: 'a.example' }, TTL);
        await store.rememberVerdict('k', { success: false }, TTL);
        expect(await store.recallVerdict('k')).toEqual({ success: true, hostname: 'a.example' });
        // verdict keys and token ids do not collide
        expect(await store.redeem('k', TTL)).toBe(true);
        await h.elapse(TTL + 100);
        expect(await store.recallVerdict('k')).toBeNull();
      });

      it('counts every call and redeems within the limit, exactly once, and nothing past it', async () => {
        const store = h.spent(prefix());
        const limit = { key: 'sv:a', windowMs: 10_000, max: 30 };
        const results = await Promise.all(Array.from({ length: 40 }, () => store.redeemWithin(limit, 'tok', 10_000)));
        expect(results.map((r) => r.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        const redeemed = results.filter((r) => r.redeemed);
        expect(redeemed).toHaveLength(1);
        expect(redeemed[0].hits).toBeLessThanOrEqual(30);
        // Past the limit nothing is redeemed: a fresh token stays good for a later call.
        expect(await store.redeemWithin(limit, 'fresh', 10_000)).toEqual({ hits: 41, redeemed: false });
        expect(await store.redeem('fresh', 10_000)).toBe(true);
        expect(await store.redeem('tok', 10_000)).toBe(false);
      });

      it('counts without a token, and starts a new window after windowMs', async () => {
        const store = h.spent(prefix());
        const limit = { key: 'sv:b', windowMs: TTL, max: 1 };
        expect(await store.redeemWithin(limit, null, 0)).toEqual({ hits: 1, redeemed: false });
        expect(await store.redeemWithin(limit, 't', 10_000)).toEqual({ hits: 2, redeemed: false });
        await h.elapse(TTL + 100);
        expect(await store.redeemWithin(limit, 't', 10_000)).toEqual({ hits: 1, redeemed: true });
        expect(await store.redeemWithin({ ...limit, max: 10 }, 't', 10_000)).toEqual({ hits: 2, redeemed: false });
      });
    });

    describe('CounterStore', () => {
      it('counts hits per key in the window', async () => {
        const store = h.counters(prefix());
        expect(await store.hit('ip:1', 10_000)).toBe(1);
        expect(await store.hit('ip:1', 10_000)).toBe(2);
        expect(await store.hit('ip:2', 10_000)).toBe(1);
        expect(await store.hit('ip:1', 10_000)).toBe(3);
      });

      it('counts every concurrent hit once', async () => {
        const store = h.counters(prefix());
        const results = await Promise.all(Array.from({ length: 50 }, () => store.hit('hot', 10_000)));
        expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      });

      it('starts a new window after windowMs', async () => {
        const store = h.counters(prefix());
        await store.hit('w', TTL);
        expect(await store.hit('w', TTL)).toBe(2);
        await h.elapse(TTL + 100);
        expect(await store.hit('w', TTL)).toBe(1);
      });

      it('tallies hits and reads in one call, as hit and count would', async () => {
        const store = h.counters(prefix());
        await store.hit('a', 10_000);
        await store.hit('read', 10_000);
        await store.hit('read', 10_000);
        expect(
          await store.tally(
            [
              { key: 'a', windowMs: 10_000 },
              { key: 'b', windowMs: 10_000 },
              { key: 'a', windowMs: 10_000 },
            ],
            ['read', 'absent', 'b'],
          ),
        ).toEqual([2, 1, 3, 2, 0, 1]);
        expect(await store.count('a')).toBe(3);
        expect(await store.tally([], [])).toEqual([]);
      });

      it('counts a conditional hit only while its condition reads 0', async () => {
        const store = h.counters(prefix());
        const hit = (key: string) => ({ key, windowMs: 10_000, onlyIfZero: 'seen' });
        // The condition is read before the call's hits: 'seen' hit here does not stop 'new'.
        expect(await store.tally([{ key: 'seen', windowMs: 10_000 }, hit('new')], ['new'])).toEqual([1, 1, 1]);
        expect(await store.tally([hit('new'), hit('other')], ['seen'])).toEqual([1, 0, 1]);
        expect(await store.count('new')).toBe(1);
        expect(await store.tally([hit('new'), { key: 'plain', windowMs: 10_000 }], [])).toEqual([1, 1]);
      });

      it('counts every concurrent tally hit once, beside plain hits', async () => {
        const store = h.counters(prefix());
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            i % 2 ? store.hit('hot', 10_000) : store.tally([{ key: 'hot', windowMs: 10_000 }], []).then((r) => r[0]),
          ),
        );
        expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      });

      it('starts a tallied window after its windowMs, and reads no expired count', async () => {
        const store = h.counters(prefix());
        await store.tally([{ key: 't', windowMs: TTL }], []);
        expect(await store.tally([{ key: 't', windowMs: TTL }], ['t'])).toEqual([2, 2]);
        await h.elapse(TTL + 100);
        expect(await store.tally([], ['t'])).toEqual([0]);
        expect(await store.tally([{ key: 't', windowMs: TTL }], [])).toEqual([1]);
      });
    });
  });
}
