import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. V8's own factor reaches 300% under a steady allocation rate, so a service whose
 * live heap is ~50 MB sat at 200+ MB of mostly garbage after a minute of load
 * (bench/hotpaths.ts rss). 30% keeps it near the live size for a few percent of throughput.
 */
const HEAP_GROWING_PERCENT = 30;

/**
 * Applied at start, before the first full collection. The factor is read at every
 * collection, so setting it at run time works (unlike the semi-space size, which `npm start`
 * passes on node's command line, `--max-semi-space-size=4`: the young generation is sized
 * when the heap is made).
 */
export function tuneHeapForService(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
