// The compose test's load during a rolling upgrade (test/container/compose.ts): a bounded,
// paced stream through Caddy of what a site's server and an API client send, each request
// retried as such a client retries, and everything else counted as a failure.
import { randomUUID } from 'node:crypto';
import { json, sleep, type Answer } from './compose-stack.ts';

export interface LoadOptions {
  base: string;
  key: string;
  secret: string;
  reportId: number;
  /** A token spent before: each siteverify of it must be refused. */
  spent: string;
  /** Fresh tokens, redeemed one every few ticks, each exactly once. */
  tokens: string[];
  /**
   * One request per tick, a third of them siteverify: under its 120 a minute per site, and the
   * report reads under the key's 240.
   */
  tickMs?: number;
  maxRequests?: number;
  maxMs?: number;
}

/**
 * What a client retries: a 502 or 503 from Caddy (no instance answered, or the one that did was
 * going away) and a refused connection; a siteverify retry carries the same `idempotency_key`,
 * so it repeats the first verdict and never spends a token twice (docs/challenges.md).
 */
const RETRIED = new Set([502, 503]);
const ATTEMPTS = 6;

export function startLoad(opts: LoadOptions) {
  const tickMs = opts.tickMs ?? 300;
  const maxRequests = opts.maxRequests ?? 800;
  const maxMs = opts.maxMs ?? 240_000;
  const counts: Record<string, number> = {};
  const failures: string[] = [];
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  const pending = new Set<Promise<void>>();
  const tokens = [...opts.tokens];
  let redeemedOnce = 0;
  let stopping = false;

  async function send(kind: string, request: () => Promise<Answer>, ok: (a: Answer) => boolean): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      let answer: Answer;
      try {
        answer = await request();
      } catch (err) {
        count(`${kind} error (retried)`);
        if (attempt === ATTEMPTS) failures.push(`${kind}: ${String(err)}`);
        await sleep(500);
        continue;
      }
      if (RETRIED.has(answer.status)) {
        count(`${kind} ${answer.status} (retried)`);
        if (attempt === ATTEMPTS) failures.push(`${kind}: ${answer.status} ${ATTEMPTS} times`);
        await sleep(500);
        continue;
      }
      count(`${kind} ${answer.status}`);
      if (!ok(answer)) failures.push(`${kind}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      return;
    }
  }

  const verify = (response: string, idempotencyKey: string) => () =>
    json(`${opts.base}/api/v1/siteverify`, {
      method: 'POST',
      body: JSON.stringify({ secret: opts.secret, response, idempotency_key: idempotencyKey }),
    });

  const loop = (async () => {
    const started = performance.now();
    const done = () => stopping && tokens.length === 0;
    for (let tick = 0; !done() && tick < maxRequests && performance.now() - started < maxMs; tick++) {
      let p: Promise<void>;
      if (tick % 3 !== 0) {
        p = send(
          'report read',
          () => json(`${opts.base}/api/v1/reports/${opts.reportId}`, { key: opts.key }),
          (r) => r.status === 200,
        );
      } else if (tick % 15 === 0 && tokens.length > 0) {
        p = send('siteverify fresh', verify(tokens.shift()!, randomUUID()), (r) => {
          if (r.body?.success === true) redeemedOnce++;
          return r.status === 200 && r.body?.success === true;
        });
      } else {
        p = send(
          'siteverify spent',
          verify(opts.spent, randomUUID()),
          (r) => r.status === 200 && r.body?.success === false,
        );
      }
      pending.add(p);
      void p.finally(() => pending.delete(p));
      await sleep(tickMs);
    }
  })();

  return {
    /** Ends the load once every fresh token is sent, waits for what is in flight, and says what happened. */
    async stop() {
      stopping = true;
      await loop;
      await Promise.all(pending);
      if (tokens.length > 0) failures.push(`${tokens.length} fresh tokens never sent (the load ended first)`);
      return { counts, failures, redeemedOnce };
    },
  };
}
