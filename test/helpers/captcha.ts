import type { OpenedServices } from '../../src/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { createKeyedUser } from './services.ts';
import { request, type JsonResponse } from './http.ts';
import { Worker } from 'node:worker_threads';
import { solveWork } from '../../src/captcha/work.ts';
import { envAnswer, envProgram } from '../../src/captcha/env-proof.ts';

/** A registered site with its one-time secret, owned by a fresh user. */
export async function createTestSite(
  services: OpenedServices,
  origins: string[] = ['https://shop.example'],
  security: { security_level?: 'low' | 'default' | 'high'; min_work_bits?: number | null } = {},
) {
  const { user } = await createKeyedUser(services, 'siteowner');
  const { site, secret } = await createSite(services.orm.em.fork(), user.id, {
    name: 'test site',
    origins,
    ...security,
  });
  return { sitekey: site.sitekey, secret, ownerId: user.id };
}

/** Browser-like headers for challenge routes: the Origin plus what a real browser sends. */
export function browser(origin: string | undefined, ip?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
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

/** Solves a work challenge natively (as a bot on a server would): the fields a proof carries. */
export function solveProof(work: { ticket: string; id: string; count: number; bits: number }): {
  work: string;
  solutions: string;
} {
  return { work: work.ticket, solutions: solveWork(work).solutions };
}

/** The same search as solveWork (src/captcha/work.ts), in a worker thread. */
const solverThread = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const out = [];
for (let i = 0; i < w.count; i++) {
  for (let n = 0; ; n++) {
    const h = createHash('sha256').update(w.id + '.' + i + ':' + n).digest();
    let bits = 0;
    for (const b of h) { if (b === 0) { bits += 8; continue; } bits += Math.clz32(b) - 24; break; }
    if (bits >= w.bits) { out.push(n); break; }
  }
}
parentPort.postMessage(out.join(','));
`;

/**
 * {@link solveProof} off the main thread, so a server in the same process keeps answering
 * (a blocked event loop lets its keep-alive sockets time out under the client).
 */
export function solveProofAsync(work: {
  ticket: string;
  id: string;
  count: number;
  bits: number;
}): Promise<{ work: string; solutions: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(solverThread, {
      eval: true,
      workerData: { id: work.id, count: work.count, bits: work.bits },
    });
    worker.once('message', (solutions: string) => {
      resolve({ work: work.ticket, solutions });
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * The environment answer a real page would compute, worked out from the server's key: what
 * only a browser (or an emulator written for this service) can produce. Tests use it to
 * stand in for the widget.
 */
export function envAnswerFor(services: OpenedServices, workId: string): string {
  return String(envAnswer(envProgram(services.config.tokenKey!, workId)));
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
    telemetry: opts.telemetry,
  };
  const first = await request(`${base}/api/v3/challenges`, { method: 'POST', headers, json: fields });
  if (first.status !== 201 || !first.body.challenge) return first;
  const work = first.body.challenge;
  const env = opts.tokenKey ? String(envAnswer(envProgram(opts.tokenKey, work.id))) : undefined;
  return request(`${base}/api/v3/challenges`, {
    method: 'POST',
    headers,
    json: { ...fields, ...(await solveProofAsync(work)), env },
  });
}
