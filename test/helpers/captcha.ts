import type { OpenedServices } from '../../src/services.ts';
import { createSite, type SecuritySettings } from '../../src/captcha/sites.ts';
import { createKeyedUser } from './services.ts';
import { request, type JsonResponse } from './http.ts';
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { walkWasm } from '../../pow/compile.ts';
import { puzzleKey } from '../../pow/walk.ts';
import { openValues } from '../../src/captcha/env-proof.ts';
import { openTicket } from '../../src/captcha/work.ts';
import { formatAnswer, solveWork } from './solve.ts';

/** A registered site with its one-time secret, owned by a fresh user. */
export async function createTestSite(
  services: OpenedServices,
  origins: string[] = ['https://shop.example'],
  security: SecuritySettings = {},
) {
  const { user } = await createKeyedUser(services, 'siteowner');
  const { site, secret } = await createSite(services.orm.em.fork(), user.id, {
    name: 'test site',
    origins,
    ...security,
  });
  // The environment proof's engine starts with the first challenge; start it here, inside the
  // suite's set-up, rather than inside its first test's time.
  await services.engineReference?.warm();
  return { sitekey: site.sitekey, secret, ownerId: user.id };
}

/** The User-Agent {@link browser} sends. */
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';

/**
 * What a person's page reports (widget/telemetry.ts): a person's window, some presses, some
 * seconds on the page, and a page with nothing of automation in it that agrees with
 * {@link browser}'s headers (a Chromium on a page without client hints).
 */
export const PERSON_TELEMETRY = {
  webdriver: false,
  time_on_page_ms: 9000,
  interactions: 12,
  outer_width: 1280,
  outer_height: 900,
  inner_width: 1280,
  inner_height: 813,
  screen_width: 1920,
  screen_height: 1080,
  dpr: 100,
  page: {
    cdp: false,
    automation: false,
    no_pointer: false,
    tampered: false,
    permission_mismatch: false,
    ua: BROWSER_UA,
    language: 'en-GB',
    brands: '',
    platform: '',
    ua_data: 'absent',
    webgl: '',
  },
};

/** Browser-like headers for challenge routes: the Origin plus what a real browser sends. */
export function browser(origin: string | undefined, ip?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'User-Agent': BROWSER_UA,
    'Accept-Language': 'en-GB,en;q=0.9',
  };
  if (origin) headers.Origin = origin;
  if (ip) headers['X-Forwarded-For'] = ip;
  return headers;
}

export async function siteverify(
  base: string,
  body: Record<string, string>,
  path = '/api/v1/siteverify',
): Promise<JsonResponse> {
  return request(`${base}${path}`, { method: 'POST', json: body });
}

/** Solves a work challenge (as a bot on a server would, with our own code): the fields a proof carries. */
export function solveProof(work: { ticket: string; id: string; count: number; bits: number }): {
  work: string;
  solutions: string;
} {
  return { work: work.ticket, solutions: solveWork(work).solutions };
}

const walkBytes = await walkWasm();

/** The widget's walk.wat in a worker thread: the puzzles' indices and keys (pow/walk.ts puzzleKey) in, their nonces out. */
const solverThread = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { exports: x } = new WebAssembly.Instance(new WebAssembly.Module(w.bytes));
const words = new Uint32Array(x.memory.buffer, 0, 80);
const out = [];
for (const [i, key] of w.puzzles) {
  for (let l = 0; l < 8; l++) words.set(key, l * 8);
  let found = -1;
  for (let start = 0; found < 0; start += 8 * 64) found = x.search(w.bits, start, 64);
  out.push([i, found]);
}
parentPort.postMessage(out);
`;

/** Threads a proof is solved on: this machine's cores, as a bot (or the widget's workers) would use. */
const THREADS = Math.max(1, Math.min(4, availableParallelism()));

/** Puzzles first, first + THREADS, ... of a challenge, each with its key. */
const stripeOf = (work: { id: string; count: number }, first: number): Array<[number, Uint32Array]> => {
  const out: Array<[number, Uint32Array]> = [];
  for (let i = first; i < work.count; i += THREADS) out.push([i, puzzleKey(work.id, i)]);
  return out;
};

/**
 * {@link solveProof} off the main thread, on every core, so a server in the same process keeps
 * answering (a blocked event loop lets its keep-alive sockets time out under the client).
 */
export async function solveProofAsync(work: {
  ticket: string;
  id: string;
  count: number;
  bits: number;
}): Promise<{ work: string; solutions: string }> {
  const nonces: number[] = new Array<number>(work.count);
  const stripe = (first: number) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(solverThread, {
        eval: true,
        workerData: { bits: work.bits, bytes: walkBytes, puzzles: stripeOf(work, first) },
      });
      worker.once('message', (found: Array<[number, number]>) => {
        for (const [i, n] of found) nonces[i] = n;
        resolve();
        void worker.terminate();
      });
      worker.once('error', reject);
    });
  await Promise.all(Array.from({ length: Math.min(THREADS, work.count) }, (_, k) => stripe(k)));
  return { work: work.ticket, solutions: nonces.join(',') };
}

/**
 * The environment answer a real page would measure, read from the values the ticket sealed
 * (which only the server's key opens): what only a layout engine can produce. Tests that are
 * not about the environment proof use it to stand in for the widget.
 */
export function envAnswerFor(services: OpenedServices, work: { ticket: string }): string {
  return envAnswerWithKey(services.config.tokenKey!, work);
}

/**
 * The environment answer of a v1 challenge (its layouts live in the challenge's state), read
 * with the server's key: what the widget in a real page would measure.
 */
export async function v1EnvAnswerFor(services: OpenedServices, challenge: string): Promise<string> {
  const state = (await services.stores.challenges.get(challenge)) as { env?: string | null } | null;
  const values = state?.env ? openValues(services.config.tokenKey!, state.env) : undefined;
  if (!values) throw new Error('the challenge carries no layout: the service has no engine for the environment proof');
  return formatAnswer(values);
}

function envAnswerWithKey(tokenKey: Buffer, work: { ticket: string }): string {
  const opened = openTicket(tokenKey, work.ticket);
  const values = opened.ok && opened.claims.env ? openValues(tokenKey, opened.claims.env) : undefined;
  if (!values) throw new Error('the ticket carries no layout: the service has no engine for the environment proof');
  return formatAnswer(values);
}

/**
 * A v3 token through the real browser route, as a client that does the work: the challenge,
 * the native solve, the proof (with the environment answer when `tokenKey` is given, as the
 * widget in a page would send it). Resolves to the final response (201 with the token).
 */
export async function v3Token(
  base: string,
  opts: {
    sitekey: string;
    origin: string;
    action?: string;
    cdata?: string;
    ip?: string;
    telemetry?: object;
    tokenKey?: Buffer;
  },
): Promise<JsonResponse> {
  const headers = browser(opts.origin, opts.ip);
  const fields = {
    sitekey: opts.sitekey,
    action: opts.action ?? 'login',
    cdata: opts.cdata,
    // The widget always sends telemetry; standing in for it, so does this client.
    telemetry: opts.telemetry ?? PERSON_TELEMETRY,
  };
  const first = await request(`${base}/api/v3/challenges`, { method: 'POST', headers, json: fields });
  if (first.status !== 201 || !first.body.challenge) return first;
  const work = first.body.challenge;
  const env = opts.tokenKey ? envAnswerWithKey(opts.tokenKey, work) : undefined;
  return request(`${base}/api/v3/challenges`, {
    method: 'POST',
    headers,
    json: { ...fields, ...(await solveProofAsync(work)), env },
  });
}
