/**
 * TEST_KEYS=off (issue 26): the providers' published test keys become unknown keys, so a
 * production backend left on a test secret accepts nothing, not even the dummy token; and a
 * production start that leaves them on says so.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openServices } from '../../src/services.ts';
import { DUMMY_TOKENS, TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';

let services: TestServices;
let server: TestServer;

beforeAll(async () => {
  services = await openTestServices({ env: { TEST_KEYS: 'off' } });
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

describe('TEST_KEYS=off', () => {
  it('a test secret is an unknown secret, even with the published dummy token', async () => {
    for (const secret of [TEST_SECRETS.pass, TEST_SECRETS.recaptcha, TEST_SECRETS.hcaptcha]) {
      const res = await request(`${server.url}/api/v1/siteverify`, {
        method: 'POST',
        json: { secret, response: DUMMY_TOKENS.turnstile },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, 'error-codes': ['invalid-input-secret'] });
    }
  });

  it('a test sitekey is an unknown sitekey: no challenge for any origin', async () => {
    const res = await request(`${server.url}/api/v3/challenges`, {
      method: 'POST',
      json: { sitekey: TEST_SITEKEYS.pass, action: 'login' },
      headers: { Origin: 'https://anywhere.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ERR_ORIGIN_NOT_ALLOWED');
  });
});

describe('a production start with test keys on', () => {
  it('warns once; with TEST_KEYS=off it does not', async () => {
    for (const [testKeys, warnings] of [
      ['on', 1],
      ['off', 0],
    ] as const) {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      const config = loadConfig({ NODE_ENV: 'production', TEST_KEYS: testKeys, LOG_LEVEL: 'warn' });
      const opened = await openServices(config, pino({ level: 'warn' }, sink), { dataDir: null });
      await opened.close();
      expect(lines.filter((l) => l.includes('TEST_KEYS is on in production'))).toHaveLength(warnings);
    }
  });
});
