/**
 * Issue 27's first adversary: an HTTP bot that has read our source and may call any of it. It
 * sends a browser's headers (they are only text), solves the work with the widget's own SIMD
 * search, and answers the environment proof as well as code without a layout engine can: by
 * breaking the paragraph's words into lines by guessing their widths. It never gets a v2 pass or
 * a token scoring above 0.3, on any security level, so siteverify refuses its tokens at the
 * site's default minimum; forged, replayed and cross-site proofs are refused; a token carried
 * to another network is refused at siteverify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import {
  browser,
  createTestSite,
  envAnswerFor,
  siteverify,
  solveProofAsync,
  PERSON_TELEMETRY,
} from '../helpers/captcha.ts';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import { textValueCount } from '../../src/captcha/env-proof.ts';

let services: TestServices;
let server: TestServer;
const ORIGIN = 'https://shop.example';
const LEVELS = ['low', 'default', 'high'] as const;
const sites: Record<string, { sitekey: string; secret: string }> = {};

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  for (const level of LEVELS) sites[level] = await createTestSite(services, [ORIGIN], { security_level: level });
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

// A new /16 for every request: the bot's requests look calm, each paying the level's price.
const ip = () => `${randomInt(11, 200)}.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const post = (path: string, json: unknown, from: string) =>
  request(`${server.url}${path}`, { method: 'POST', headers: browser(ORIGIN, from), json });
/** What a person's page reports: the bot sends it too; it costs nothing to say. */
const telemetry = { ...PERSON_TELEMETRY, time_on_page_ms: 9000, interactions: 12 };

/**
 * The bot's best answer without a layout engine: the words broken into lines greedily at the
 * paragraph's width, each letter guessed at half the font size (it has no font metrics, no
 * floats, no inline blocks).
 */
function emulate(probe: ProbeBox): string {
  const size = Number.parseInt(probe.s['font-size'] ?? '30', 10);
  const width = Number.parseInt(probe.s.width ?? '300', 10);
  const out: number[] = [];
  let line = 0;
  let x = 0;
  for (const run of probe.c ?? []) {
    for (const word of run.t?.split(' ') ?? []) {
      const w = word.length * size * 0.5;
      if (x > 0 && x + w > width) {
        line++;
        x = 0;
      }
      x += w + size * 0.3;
      out.push(line);
    }
  }
  expect(out).toHaveLength(textValueCount(probe));
  return out.join(',');
}

async function v3Token(sitekey: string, from: string): Promise<string> {
  const fields = { sitekey, action: 'login', telemetry };
  const first = await post('/api/v3/challenges', fields, from);
  expect(first.status).toBe(201);
  const { challenge } = first.body;
  const done = await post(
    '/api/v3/challenges',
    { ...fields, ...(await solveProofAsync(challenge)), env: emulate(challenge.env.probe) },
    from,
  );
  expect(done.status).toBe(201);
  return done.body.token;
}

describe('the source-holding HTTP bot', () => {
  // The high level's work is 50 M hashes a token: minutes on a loaded two-core machine.
  it.each(LEVELS)('gets no v3 token above 0.3 (level %s)', { timeout: 180_000 }, async (level) => {
    const from = ip();
    const token = await v3Token(sites[level].sitekey, from);
    const verdict = await siteverify(server.url, { secret: sites[level].secret, response: token, remoteip: from });
    expect(verdict.body).toMatchObject({ success: false, 'error-codes': ['invalid-input-response'], kind: 'v3' });
    expect(verdict.body.score).toBeLessThanOrEqual(0.3);
    expect(verdict.body.reasons).toContain('no_layout_engine');
  });

  it.each(LEVELS)('gets no v2 pass: after its work, the image (level %s)', { timeout: 180_000 }, async (level) => {
    const from = ip();
    const created = await post('/api/v2/challenges', { sitekey: sites[level].sitekey, telemetry }, from);
    expect(created.status).toBe(201);
    if (created.body.outcome === 'challenge') return; // sent to the image at once: no pass either
    expect(created.body.outcome).toBe('pow');
    const { work } = created.body;
    const verified = await post(
      `/api/v2/challenges/${created.body.challenge}/verify`,
      { ...(await solveProofAsync(work)), env: emulate(work.env.probe), telemetry },
      from,
    );
    expect(verified.body).toMatchObject({ success: false, error: 'challenge-required' });
    expect(verified.body.token).toBeUndefined();
  });

  it('the no-image path gives a v1 token that says it is work only, below the minimum', async () => {
    const from = ip();
    const created = (await post('/api/v1/challenges', { sitekey: sites.low.sitekey }, from)).body;
    const res = await post(
      `/api/v1/challenges/${created.challenge}/verify`,
      { no_image: true, ...(await solveProofAsync(created.no_image)) },
      from,
    );
    expect(res.body.success).toBe(true);
    const verdict = await siteverify(server.url, {
      secret: sites.low.secret,
      response: res.body.token,
      remoteip: from,
    });
    expect(verdict.body).toMatchObject({ success: false, kind: 'v1' });
    expect(verdict.body.score).toBeLessThanOrEqual(0.3);
    expect(verdict.body.reasons).toEqual(expect.arrayContaining(['no_layout_engine', 'below_site_minimum']));
  });

  it('forged, replayed and cross-site proofs are refused', async () => {
    const from = ip();
    const fields = { sitekey: sites.low.sitekey, action: 'login', telemetry };
    const { challenge } = (await post('/api/v3/challenges', fields, from)).body;
    const proof = await solveProofAsync(challenge);
    // A forged ticket: the bot rewrites the size in the payload (it cannot sign it).
    const [payload, mac] = challenge.ticket.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    claims[5] = 1;
    const forged = `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
    const refused = await post('/api/v3/challenges', { ...fields, work: forged, solutions: proof.solutions }, from);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // Another site's sitekey with this site's proof.
    const crossSite = await post('/api/v3/challenges', { ...fields, sitekey: sites.default.sitekey, ...proof }, from);
    expect(crossSite.status).toBeGreaterThanOrEqual(400);
    expect(crossSite.status).toBeLessThan(500);
    // The proof once, then again.
    expect((await post('/api/v3/challenges', { ...fields, ...proof }, from)).status).toBe(201);
    const replayed = await post('/api/v3/challenges', { ...fields, ...proof }, from);
    expect(replayed.status).toBeGreaterThanOrEqual(400);
    expect(replayed.status).toBeLessThan(500);
  });

  it('a token carried to another network is refused at siteverify', async () => {
    const solvedAt = ip();
    const token = await v3Token(sites.low.sitekey, solvedAt);
    const usedAt = '198.51.100.77';
    const verdict = await siteverify(server.url, { secret: sites.low.secret, response: token, remoteip: usedAt });
    expect(verdict.body).toEqual({ success: false, 'error-codes': ['remoteip-mismatch'] });
  });

  it('a real browser’s answer, captured and replayed onto other challenges, earns nothing', async () => {
    const fields = { sitekey: sites.low.sitekey, action: 'login', telemetry };
    const from = ip();
    // One right answer, as a real browser measured it (the oracle's, or a person's captured).
    const captured = (await post('/api/v3/challenges', fields, from)).body.challenge;
    const answer = envAnswerFor(services, captured);
    const probes = new Set([JSON.stringify(captured.env.probe)]);
    for (let i = 0; i < 6; i++) {
      const at = ip();
      const { challenge } = (await post('/api/v3/challenges', fields, at)).body;
      // Each challenge has a paragraph of its own: no answer is asked twice.
      expect(probes.has(JSON.stringify(challenge.env.probe))).toBe(false);
      probes.add(JSON.stringify(challenge.env.probe));
      const done = await post(
        '/api/v3/challenges',
        { ...fields, ...(await solveProofAsync(challenge)), env: answer },
        at,
      );
      expect(done.status).toBe(201);
      const verdict = await siteverify(server.url, {
        secret: sites.low.secret,
        response: done.body.token,
        remoteip: at,
      });
      expect(verdict.body).toMatchObject({ success: false });
      expect(verdict.body.score).toBeLessThanOrEqual(0.3);
      expect(verdict.body.reasons).toContain('no_layout_engine');
    }
  });
});
