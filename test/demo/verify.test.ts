import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { registerDemoSite, type DemoSite } from '../../src/demo/site.ts';
import { DEMO_VERIFY_LIMIT } from '../../src/demo/verify.ts';
import { browser, envAnswerFor, solveProof, PERSON_TELEMETRY } from '../helpers/captcha.ts';

let services: TestServices;
let server: TestServer;
let demo: DemoSite;
let port: number;

beforeAll(async () => {
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  port = server.server.port;
  const { user } = await createKeyedUser(services, 'local');
  const origins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  const { site, secret } = await createSite(services.orm.em.fork(), user.id, { name: 'Demo', origins });
  demo = { sitekey: site.sitekey, secret, origins };
  registerDemoSite(services, demo);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

describe('POST /demo/verify', () => {
  it('verifies in-process: a real token is redeemed once, and the demo spends no siteverify budget', async () => {
    // A v3 token through the real browser route: a work challenge, then its proof.
    const ask = (extra: Record<string, string> = {}) =>
      request(`${server.url}/api/v3/challenges`, {
        method: 'POST',
        headers: browser(`http://localhost:${port}`),
        json: { sitekey: demo.sitekey, action: 'demo_invisible', telemetry: PERSON_TELEMETRY, ...extra },
      });
    const { challenge } = (await ask()).body;
    const issued = await ask({ ...solveProof(challenge), env: envAnswerFor(services, challenge) });
    expect(issued.status).toBe(201);
    const first = await request(`${server.url}/demo/verify`, {
      method: 'POST',
      form: { mode: 'invisible', 'ac-response': issued.body.token },
    });
    expect(first.status).toBe(200);
    expect(first.text).toContain('<td id="verdict-success"><code>true</code></td>');
    expect(first.text).toContain('<td id="verdict-action"><code>&quot;demo_invisible&quot;</code></td>');
    const replay = await request(`${server.url}/demo/verify`, {
      method: 'POST',
      form: { mode: 'invisible', 'ac-response': issued.body.token },
    });
    expect(replay.text).toContain('timeout-or-duplicate');
  });

  it('is rate limited per address, and 200 posts leave a real siteverify from 127.0.0.1 unaffected', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof request>> | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await request(`${server.url}/demo/verify`, {
        method: 'POST',
        form: { mode: 'managed', 'ac-response': `junk-${i}` },
      });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    // Two posts were spent by the test above.
    expect(statuses.filter((s) => s === 200)).toHaveLength(DEMO_VERIFY_LIMIT.max - 2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - (DEMO_VERIFY_LIMIT.max - 2));
    expect(limited!.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(limited!.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(limited!.text).toContain('Too many demo verifications');

    // The loopback address still has its whole siteverify budget for the demo site (120 a
    // minute): had the demo verified over HTTP, its 30 verifications would have used 30 of it.
    for (let i = 0; i < 120; i++) {
      const real = await request(`${server.url}/api/v1/siteverify`, {
        method: 'POST',
        json: { secret: demo.secret, response: `nonsense-${i}` },
      });
      expect(real.status, `siteverify ${i + 1}`).toBe(200);
      expect(real.body).toEqual({ success: false, 'error-codes': ['invalid-input-response'] });
    }
  }, 60_000);
});
