import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { revokeApiKey } from '../../src/accounts/api-keys.ts';
import { createKeyedUser, openTestServices, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { facadeTestRouter } from './test-router.ts';

let services: TestServices;
let server: RunningServer;
let base: string;
let key: string;
let userId: number;

beforeAll(async () => {
  services = await openTestServices({ env: { BODY_LIMIT_BYTES: '2048' } });
  server = await listen(createApp(services, facadeTestRouter), {
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: 10_000,
  });
  base = `http://127.0.0.1:${server.port}`;
  const made = await createKeyedUser(services, 'facade');
  key = made.key;
  userId = made.user.id;
});
afterAll(async () => {
  await server?.close(1000);
  await services?.cleanup();
});

const errorShape = (status: number, code: string) => ({ code, message: expect.any(String), status });

describe('authentication', () => {
  it('answers the account with a good key', async () => {
    const res = await request(`${base}/api/v1/account`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: userId,
      name: 'facade',
      api_key: { prefix: expect.stringMatching(/^ak_/) },
    });
    expect(res.text).not.toContain(key);
  });

  it.each([
    ['missing', undefined, 'ERR_API_KEY_MISSING'],
    ['malformed', 'Token abc', 'ERR_API_KEY_INVALID'],
    ['empty bearer', 'Bearer ', 'ERR_API_KEY_INVALID'],
    ['unknown', `Bearer ak_0123456789_${'x'.repeat(43)}`, 'ERR_API_KEY_INVALID'],
  ])('answers 401 for a %s key', async (_name, header, code) => {
    const res = await request(`${base}/api/v1/account`, { headers: header ? { Authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorShape(401, code));
  });

  it('answers 401 for a revoked key', async () => {
    const other = await createKeyedUser(services, 'revoked');
    expect((await request(`${base}/api/v1/account`, { key: other.key })).status).toBe(200);
    await revokeApiKey(services.orm.em.fork(), `ak_${other.apiKey.prefix}`);
    const res = await request(`${base}/api/v1/account`, { key: other.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorShape(401, 'ERR_API_KEY_INVALID'));
  });
});

describe('routing and errors', () => {
  it('answers 404 JSON for an unknown route', async () => {
    const res = await request(`${base}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual(errorShape(404, 'ERR_NOT_FOUND'));
  });

  it('answers 405 with Allow for a known path and the wrong method', async () => {
    const res = await request(`${base}/api/v1/account`, { method: 'DELETE', key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(res.body).toEqual(errorShape(405, 'ERR_METHOD_NOT_ALLOWED'));
  });

  it('answers 415 for a body of another content type', async () => {
    const res = await request(`${base}/api/test/echo/a`, {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'text/plain' },
      body: 'name=x',
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(errorShape(415, 'ERR_UNSUPPORTED_MEDIA_TYPE'));
  });

  it('answers 413 above the body limit', async () => {
    const res = await request(`${base}/api/test/echo/a`, { method: 'POST', key, json: { name: 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(errorShape(413, 'ERR_PAYLOAD_TOO_LARGE'));
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(`${base}/api/test/echo/a`, {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorShape(400, 'ERR_BAD_REQUEST'));
  });

  describe('bodies alike however they are sent', () => {
    /** POSTs `body` to the echo route over node:http, so the framing is the test's to choose. */
    const send = (body: Buffer, headers: Record<string, string>, chunked = false) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = http.request(`${base}/api/test/echo/a`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, ...headers },
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        req.on('error', reject);
        if (chunked) {
          // No Content-Length: node sends Transfer-Encoding: chunked, a chunk per write.
          for (let i = 0; i < body.length; i += 7) req.write(body.subarray(i, i + 7));
          req.end();
        } else {
          req.setHeader('Content-Length', body.length);
          req.end(body);
        }
      });
    const json = Buffer.from(JSON.stringify({ name: 'dora', count: 3 }));
    const echoed = { data: { slot: 'a', name: 'dora', count: 3, flag: '0', user: expect.any(Number) } };

    it('reads JSON with a length, chunked, gzip, with a charset, a +json type and a leading BOM', async () => {
      const type = { 'Content-Type': 'application/json' };
      for (const res of [
        await send(json, type),
        await send(json, type, true),
        await send(gzipSync(json), { ...type, 'Content-Encoding': 'gzip' }),
        await send(json, { 'Content-Type': 'application/json; charset=utf-8' }),
        await send(json, { 'Content-Type': 'application/vnd.test+json' }),
        await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]), type),
      ]) {
        expect(res).toEqual({ status: 201, body: echoed });
      }
    });

    it('reads forms with a length and chunked, with nested keys bounded', async () => {
      const form = Buffer.from('name=dora&count=3');
      const type = { 'Content-Type': 'application/x-www-form-urlencoded' };
      expect(await send(form, type)).toEqual({ status: 201, body: echoed });
      expect(await send(form, type, true)).toEqual({ status: 201, body: echoed });
      // Deeper than 3 levels stays one flat key, which the schema does not take as a name.
      const deep = await send(Buffer.from('name[a][b][c][d][e]=x'), type);
      expect(deep.status).toBe(422);
    });

    it('refuses __proto__ keys, non-object JSON, and a body over the limit however it is framed', async () => {
      const type = { 'Content-Type': 'application/json' };
      const poisoned = Buffer.from('{"name":"dora","__proto__":{"admin":true}}');
      expect((await send(poisoned, type)).body).toEqual(errorShape(400, 'ERR_BAD_REQUEST'));
      expect((await send(poisoned, type, true)).body).toEqual(errorShape(400, 'ERR_BAD_REQUEST'));
      expect((await send(Buffer.from('"dora"'), type)).body).toEqual(errorShape(400, 'ERR_BAD_REQUEST'));
      const big = Buffer.from(JSON.stringify({ name: 'x'.repeat(5000) }));
      expect(await send(big, type)).toEqual({ status: 413, body: errorShape(413, 'ERR_PAYLOAD_TOO_LARGE') });
      expect(await send(big, type, true)).toEqual({ status: 413, body: errorShape(413, 'ERR_PAYLOAD_TOO_LARGE') });
    });
  });

  it('lets a client still sending a body over the limit read its 413 (no TCP reset)', async () => {
    const { port } = new URL(base);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let answer = '';
    let failure: Error | undefined;
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', (err) => (failure = err));
    socket.write(
      `POST /api/test/echo/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${64 * 1024 * 64}\r\n\r\n`,
    );
    // Keeps sending after the answer and reads it only when done, as a client busy uploading
    // a large body does: a reset meanwhile would throw away the answer waiting in its buffer.
    socket.pause();
    for (let i = 0; i < 64 && !socket.destroyed && !socket.writableEnded; i++) {
      socket.write(chunk);
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 300));
    socket.resume();
    await new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.once('close', () => resolve());
      setTimeout(() => resolve(), 5000).unref();
    });
    socket.destroy();
    expect(answer, failure?.message).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"ERR_PAYLOAD_TOO_LARGE"');
  });

  it('answers 422 with field errors for invalid input', async () => {
    const res = await request(`${base}/api/test/echo/a`, { method: 'POST', key, json: { name: '', count: 99 } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'ERR_VALIDATION', status: 422, message: expect.any(String) });
    expect(Object.keys(res.body.errors).sort()).toEqual(['count', 'name']);
    expect(res.body.errors.name[0]).toEqual(expect.any(String));
  });

  it('answers 422 for a JSON array or a duplicated parameter', async () => {
    expect((await request(`${base}/api/test/echo/a`, { method: 'POST', key, json: [1, 2] })).status).toBe(422);
    const dup = await request(`${base}/api/test/echo/a`, {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'name=a&name=b',
    });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.name).toBeDefined();
  });

  it('hides internals behind a bare 500', async () => {
    const res = await request(`${base}/api/test/boom`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'ERR_INTERNAL', message: 'Internal server error.', status: 500 });
    expect(res.text).not.toContain('hunter2');
  });

  it('maps UNAVAILABLE to 503 with Retry-After', async () => {
    const res = await request(`${base}/api/test/boom?kind=unavailable`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body).toEqual({ code: 'ERR_UNAVAILABLE', message: 'Database is down.', status: 503 });
  });
});

describe('bodies', () => {
  it('gives a procedure the same input from a form body and a JSON body', async () => {
    const viaJson = await request(`${base}/api/test/echo/s1`, {
      method: 'POST',
      key,
      json: { name: 'same', count: '3', flag: '1' },
    });
    const viaForm = await request(`${base}/api/test/echo/s1`, {
      method: 'POST',
      key,
      form: { name: 'same', count: '3', flag: '1' },
    });
    expect(viaJson.status).toBe(201);
    expect(viaForm.status).toBe(201);
    expect(viaForm.body).toEqual(viaJson.body);
    expect(viaJson.body.data).toEqual({ slot: 's1', name: 'same', count: 3, flag: '1', user: userId });
  });

  it('lets path parameters win over body fields', async () => {
    const res = await request(`${base}/api/test/echo/real`, {
      method: 'POST',
      key,
      json: { name: 'n', slot: 'forged' },
    });
    expect(res.body.data.slot).toBe('real');
  });

  it('coerces query numbers', async () => {
    const res = await request(`${base}/api/test/slow?ms=1`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ done: true });
  });
});

describe('operations', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await request(`${base}/healthz`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await request(`${base}/healthz`, { headers: { 'X-Request-Id': 'bad id\twith spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports health and readiness', async () => {
    expect((await request(`${base}/healthz`)).body).toEqual({ status: 'ok' });
    const ready = await request(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', store: 'ok' } });
  });
});
