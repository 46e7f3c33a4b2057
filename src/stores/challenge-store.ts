import { CompactJson, flatString } from './compact-json.ts';
import { SweepPass, trimOldest } from './map-bounds.ts';
import type { RedisClient } from './redis-client.ts';
import { redisScript } from './redis-script.ts';

/**
 * Short-lived per-challenge state (image answers, attempts left, proof-of-work puzzles),
 * one contract with a process-memory and a Redis implementation. States are stored as JSON,
 * so both implementations hand back copies, never the caller's object.
 *
 * Also home of {@link TtlMap}, the expiring map behind every memory store in this folder.
 */
export interface ChallengeStore<S extends object> {
  /** Stores `state` under `id` for `ttlMs`. Throws if the id is already taken (ids are random). */
  create(id: string, state: S, ttlMs: number): Promise<void>;
  /** The live state, or null when absent or expired. */
  get(id: string): Promise<S | null>;
  /**
   * Atomic read-modify-write: `fn` gets the current state and returns the next one, or null
   * to delete it. The remaining TTL is kept. Resolves to the stored result, or null when the
   * id was absent (fn not called) or fn deleted it. `fn` may run more than once on Redis
   * (optimistic retries), so it must be pure.
   */
  update(id: string, fn: (s: S) => S | null): Promise<S | null>;
  /** Deletes `id`; true only for the one caller whose call removed a live entry. */
  delete(id: string): Promise<boolean>;
}

/** Options of {@link TtlMap}. */
export interface TtlMapOptions {
  /** Clock, unix ms. */
  now?: () => number;
  /** Beyond this many entries the oldest-inserted are evicted, down to 1% below it. */
  maxEntries?: number;
}

/** Entries each write examines for expiry, resuming where the write before it stopped. */
const SWEEP_STEP = 4;

const expired = (e: { expiresAt: number }, now: number) => e.expiresAt <= now;

/**
 * A Map whose entries expire. Expiry is checked on every read; each write also examines the
 * next few entries of one pass over the map (map-bounds.ts), dropping expired ones, so a map
 * of N entries is swept every N/3 writes or so and no write pays for more than a few. Writes
 * also keep the size at most `maxEntries`, dropping the oldest-inserted. The clock is
 * injected (no timers to unref or fake). Shared by the memory stores in this folder.
 */
export class TtlMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly sweep = new SweepPass(this.entries);

  constructor(opts: TtlMapOptions = {}) {
    this.now = opts.now ?? (() => Date.now()); // looked up per call, so fake timers apply
    this.maxEntries = opts.maxEntries ?? 200_000;
  }

  /** Entries held, expired ones the sweep has not reached yet included (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  /** The live entry for `key`, dropping it if expired. */
  entry(key: string): { value: V; expiresAt: number } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  get(key: string): V | undefined {
    return this.entry(key)?.value;
  }

  /** Sets `key` for `ttlMs` from now, replacing any entry. */
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key); // re-insert so insertion order stays expiry-ish order
    this.insertNew(key, value, ttlMs);
  }

  /** Sets `key` only if there is no live entry; true if it did. */
  setIfAbsent(key: string, value: V, ttlMs: number): boolean {
    // entry() dropped an expired entry, so an absent key needs no delete before the insert
    // (on a map of a million spent marks each lookup is a cache miss or two).
    if (this.entry(key)) return false;
    this.insertNew(key, value, ttlMs);
    return true;
  }

  /**
   * Inserts `key`, which must not be in the map: a read in the same turn found no live entry
   * (and dropped an expired one). Sweeps a step and trims, as every write does.
   */
  insertNew(key: string, value: V, ttlMs: number): void {
    const now = this.now();
    this.sweep.step(SWEEP_STEP, expired, now);
    // Keys are often concatenations (`t:${id}`, `gw:pb:${id}`): kept flat (see flatString), not
    // as their two parts.
    this.entries.set(flatString(key), { value, expiresAt: now + ttlMs });
    trimOldest(this.entries, this.maxEntries);
  }

  /** Replaces the value of a live entry, keeping its expiry; false if there was none. */
  replace(key: string, value: V): boolean {
    const e = this.entry(key);
    if (!e) return false;
    e.value = value;
    return true;
  }

  /** Deletes a live entry; false if there was none (or it had expired). */
  delete(key: string): boolean {
    const live = this.entry(key) !== undefined;
    if (live) this.entries.delete(key);
    return live;
  }
}

/**
 * Process-memory challenge store. `now` is injectable for fake time. Keys are the ids, with no
 * prefix (the map is this store's own); states are kept as compact JSON (compact-json.ts:
 * shapes once, values per entry).
 */
export function memoryChallengeStore<S extends object>(now: () => number = () => Date.now()): ChallengeStore<S> {
  const map = new TtlMap<string>({ now });
  const json = new CompactJson();
  const parse = (text: string) => json.decode(text) as S;
  return {
    async create(id, state, ttlMs) {
      if (!map.setIfAbsent(id, json.encode(state), positiveTtl(ttlMs)))
        throw new Error(`challenge ${id} already exists`);
    },
    async get(id) {
      const stored = map.get(id);
      return stored === undefined ? null : parse(stored);
    },
    async update(id, fn) {
      // No await between read and write: the whole step runs in one turn, hence atomic.
      const stored = map.get(id);
      if (stored === undefined) return null;
      const next = fn(parse(stored));
      if (next === null) {
        map.delete(id);
        return null;
      }
      const nextStored = json.encode(next);
      map.replace(id, nextStored);
      return parse(nextStored);
    },
    async delete(id) {
      return map.delete(id);
    },
  };
}

/** Compare-and-set: write ARGV[2] (or delete when ARGV[3] is '1') only if the value is still ARGV[1]. */
const casScript = redisScript(`
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return 0 end
if ARGV[3] == '1' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`);

/** Optimistic attempts before {@link ChallengeStore.update} gives up on a hot key. */
const MAX_UPDATE_ATTEMPTS = 100;

/**
 * Redis challenge store. Keys are `prefix + id`, values JSON with a PX expiry. `update` is
 * optimistic: GET, apply fn, then a compare-and-set Lua script (SET ... KEEPTTL only if the
 * value is unchanged), retried with jittered back-off up to 100 times. Unlike WATCH/MULTI this
 * works on the shared multiplexed client.
 */
export function redisChallengeStore<S extends object>(client: RedisClient, prefix: string): ChallengeStore<S> {
  return {
    async create(id, state, ttlMs) {
      const reply = await client.set(prefix + id, JSON.stringify(state), {
        expiration: { type: 'PX', value: positiveTtl(ttlMs) },
        condition: 'NX',
      });
      if (reply === null) throw new Error(`challenge ${id} already exists`);
    },
    async get(id) {
      const json = await client.get(prefix + id);
      return json === null ? null : (JSON.parse(json) as S);
    },
    async update(id, fn) {
      const key = prefix + id;
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        const json = await client.get(key);
        if (json === null) return null;
        const next = fn(JSON.parse(json) as S);
        const nextJson = next === null ? '' : JSON.stringify(next);
        const swapped = await casScript(client, {
          keys: [key],
          arguments: [json, nextJson, next === null ? '1' : '0'],
        });
        if (Number(swapped) === 1) return next === null ? null : (JSON.parse(nextJson) as S);
        await sleep(Math.random() * Math.min(20, 2 ** attempt));
      }
      throw new Error(`challenge ${id}: update lost ${MAX_UPDATE_ATTEMPTS} races in a row`);
    },
    async delete(id) {
      return (await client.del(prefix + id)) === 1;
    },
  };
}

/** A TTL Redis accepts: a positive integer of milliseconds. */
export function positiveTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number');
  return Math.max(1, Math.ceil(ttlMs));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
