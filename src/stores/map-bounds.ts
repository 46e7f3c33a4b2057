/**
 * Keeping the memory stores' Maps bounded without ever holding the process for a whole map
 * (a full sweep of a large map, or one per insert past a cap, would; figures in bench/README.md).
 */

/**
 * One pass over a Map, a few entries a call, resuming where the last call stopped (a Map
 * iterator stays valid while the map changes); a new pass starts after the last entry.
 */
export class SweepPass<K, V> {
  private cursor: MapIterator<[K, V]> | undefined;

  constructor(private readonly map: Map<K, V>) {}

  /** Examines up to `count` entries, deleting those `ended(value, now)` says are over. */
  step(count: number, ended: (value: V, now: number) => boolean, now: number): void {
    for (let i = 0; i < count; i++) {
      this.cursor ??= this.map.entries();
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      if (ended(next.value[1], now)) this.map.delete(next.value[0]);
    }
  }
}

/**
 * Past `max` entries, deletes the oldest-inserted until 1% below it, so a full map costs each
 * insert a constant amount.
 */
export function trimOldest(map: Map<unknown, unknown>, max: number): void {
  if (map.size <= max) return;
  const lowWater = max - Math.max(1, Math.floor(max / 100));
  for (const key of map.keys()) {
    if (map.size <= lowWater) break;
    map.delete(key);
  }
}
