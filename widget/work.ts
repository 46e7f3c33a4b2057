/**
 * Runs a work challenge's sub-puzzles across Web Workers (one per logical core, as
 * `navigator.hardwareConcurrency` reports, at most 16), each with walk.wat (pow/), all of them
 * on each puzzle in turn, in stripes of its nonces (solver.ts). Where workers are refused (a CSP
 * without `worker-src blob:`), the puzzles are solved on the page with the plain-JS walk,
 * yielding every 40 ms.
 */
import { solvePuzzle, type Engine } from './solver.ts';

/** The worker bundle's code, when a build embeds it (src/bundles.ts); else fetched. */
declare const __AUDITCAPTCHA_WORK_WORKER__: string | undefined;

export interface WorkJob {
  promise: Promise<{ solutions: string; engine: Engine | 'page'; ms: number }>;
  cancel(): void;
}

export interface WorkSpec {
  id: string;
  count: number;
  bits: number;
}

let workerScriptUrl: string | undefined;
let workerSource: Promise<string | undefined> | undefined;

/**
 * Where the worker bundle is served (`/widget-worker.js` beside widget.js). A page may not
 * start a Worker from another origin's URL, so the code is fetched (CORS) and started from a
 * Blob URL; fetching it apart keeps widget.js and the drop-in scripts small. Starts the fetch.
 */
export function workerScriptAt(url: string): void {
  if (workerScriptUrl === url) return;
  workerScriptUrl = url;
  workerSource = undefined;
  void loadWorkerSource();
}

function loadWorkerSource(): Promise<string | undefined> {
  if (typeof __AUDITCAPTCHA_WORK_WORKER__ === 'string') return Promise.resolve(__AUDITCAPTCHA_WORK_WORKER__);
  if (!workerScriptUrl || typeof fetch === 'undefined') return Promise.resolve(undefined);
  workerSource ??= fetch(workerScriptUrl, { credentials: 'omit' })
    .then((res) => (res.ok ? res.text() : undefined))
    .catch(() => undefined);
  return workerSource;
}

/** Solves every puzzle; `onProgress` gets the fraction of puzzles solved. */
export function startWork(
  spec: WorkSpec,
  onProgress: (fraction: number) => void = () => {},
  opts: { engine?: Engine; workers?: number } = {},
): WorkJob {
  const started = performance.now();
  const nonces: number[] = new Array<number>(spec.count);
  let solved = 0;
  let cancelled = false;
  const workers: Worker[] = [];
  let url: string | undefined;
  const cleanup = () => {
    for (const w of workers.splice(0)) w.terminate();
    if (url) URL.revokeObjectURL(url);
    url = undefined;
  };
  const record = (i: number, n: number) => {
    if (nonces[i] !== undefined) return;
    nonces[i] = n;
    solved++;
    onProgress(solved / spec.count);
  };
  const finish = (engine: Engine | 'page') => ({
    solutions: nonces.join(','),
    engine,
    ms: Math.round(performance.now() - started),
  });

  const onPage = async () => {
    let yielded = performance.now();
    const between = async () => {
      if (performance.now() - yielded < 40) return;
      await new Promise((resolve) => setTimeout(resolve, 0));
      yielded = performance.now();
    };
    for (let i = 0; i < spec.count; i++) {
      if (nonces[i] !== undefined) continue;
      const found = await solvePuzzle(spec.id, i, spec.bits, { engine: 'js', between, cancelled: () => cancelled });
      if (found) record(i, found.nonce);
    }
    return finish('page');
  };

  const promise = loadWorkerSource().then(
    (source) =>
      new Promise<ReturnType<typeof finish>>((resolve, reject) => {
        if (cancelled) return;
        const fallBack = () => {
          cleanup();
          if (!cancelled) onPage().then(resolve, reject);
        };
        if (!source || typeof Worker === 'undefined') return fallBack();
        const cores = Math.max(1, Math.min(16, opts.workers ?? (navigator.hardwareConcurrency || 2)));
        let heard = false;
        try {
          url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
          for (let w = 0; w < cores; w++) workers.push(new Worker(url));
        } catch {
          return fallBack();
        }
        workers.forEach((worker, w) => {
          worker.onerror = (e) => {
            e.preventDefault();
            if (!heard) fallBack();
            else {
              cleanup();
              reject(new Error('worker failed'));
            }
          };
          worker.onmessage = (m: MessageEvent<{ i?: number; n?: number; engine?: Engine; e?: string }>) => {
            heard = true;
            const d = m.data;
            if (d.e !== undefined) {
              cleanup();
              return reject(new Error(d.e));
            }
            if (d.i === undefined || d.n === undefined) return;
            record(d.i, d.n);
            if (solved === spec.count) {
              cleanup();
              return resolve(finish(d.engine ?? 'wasm'));
            }
            for (const other of workers) if (other !== worker) other.postMessage({ solved: d.i });
          };
          worker.postMessage({
            id: spec.id,
            bits: spec.bits,
            count: spec.count,
            stripe: w,
            stripes: cores,
            engine: opts.engine,
          });
        });
      }),
  );
  return {
    promise,
    cancel() {
      cancelled = true;
      cleanup();
    },
  };
}
