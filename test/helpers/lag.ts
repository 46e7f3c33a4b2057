import http from 'node:http';

/**
 * Polls `url` (every ~10 ms, one at a time) until `until` settles, and returns each poll's
 * lag: from the moment the poll was due to its answer, so a stalled event loop counts whether
 * it held the request or the timer before it.
 */
export async function pollLag(url: string, until: Promise<unknown>): Promise<{ lags: number[]; failures: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lags: number[] = [];
  let failures = 0;
  let due = performance.now();
  while (!done) {
    const status = await new Promise<number>((resolve) => {
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', () => resolve(0));
    });
    lags.push(performance.now() - due);
    if (status !== 200) failures++;
    const slept = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A timer that fires late is a stalled loop too.
    if (performance.now() - slept - 10 > 0) lags.push(performance.now() - slept - 10);
    // The next poll is due now; the timer's own lateness is counted by the line below.
    due = performance.now();
  }
  agent.destroy();
  return { lags, failures };
}

/** The p-th percentile of `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}
