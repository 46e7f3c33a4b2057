/**
 * Slow and oversized clients against the real server: headers trickled a byte a second, a
 * body slower than the request deadline, bodies past BODY_LIMIT_BYTES (declared or chunked),
 * and many idle connections. Each is cut off on time, answers in the documented shape where
 * an answer is possible, and never keeps other clients from being served.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';

const REQUEST_TIMEOUT_MS = 2000;
const BODY_LIMIT = 16_384;

let services: TestServices;
let server: TestServer;
let port: number;

beforeAll(async () => {
  services = await openTestServices({
    env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), BODY_LIMIT_BYTES: String(BODY_LIMIT), TRUST_PROXY: 'true' },
    store: 'memory',
  });
  server = await startTestServer(services);
  port = server.server.port;
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

interface RawClient {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the time (ms since connect) the server closed the connection, or null after `ms`. */
  closedWithin(ms: number): Promise<number | null>;
  /** Whether the server has closed the connection. */
  closed(): boolean;
}

async function connect(): Promise<RawClient> {
  const started = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const chunks: Buffer[] = [];
  let closedAt: number | null = null;
  socket.on('data', (d) => chunks.push(d));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      closedAt = Date.now() - started;
      resolve(closedAt);
    }),
  );
  return {
    socket,
    received: () => Buffer.concat(chunks).toString('latin1'),
    closed: () => closedAt !== null,
    closedWithin: (ms) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([closed, new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]).finally(() =>
        clearTimeout(timer),
      );
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Status and JSON body of the first response in `raw`, if there is one. */
function parseResponse(raw: string): { status: number; headers: string; body: any } | undefined {
  const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  if (!m) return undefined;
  const length = Number(/content-length: *(\d+)/i.exec(m[2])?.[1] ?? -1);
  const text = length >= 0 ? m[3].slice(0, length) : m[3];
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: Number(m[1]), headers: m[2], body };
}

function expectErrorBody(res: ReturnType<typeof parseResponse>, status: number) {
  expect(res, 'a response').toBeDefined();
  expect(res!.status).toBe(status);
  expect(res!.headers).toMatch(/content-type: application\/json/i);
  expect(res!.body).toEqual({
    code: {
      400: 'ERR_BAD_REQUEST',
      408: 'ERR_REQUEST_TIMEOUT',
      413: 'ERR_PAYLOAD_TOO_LARGE',
      431: 'ERR_HEADERS_TOO_LARGE',
    }[status],
    message: expect.any(String),
    status,
  });
}

/** Writes `bytes` one at a time, `intervalMs` apart, until done or the server closes. Returns how many went. */
async function trickle(client: RawClient, bytes: string, intervalMs: number): Promise<number> {
  let sent = 0;
  for (const ch of bytes) {
    if (client.closed()) break;
    client.socket.write(ch);
    sent++;
    await sleep(intervalMs);
  }
  return sent;
}

async function healthz(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5000) });
  return res.status;
}

describe('slow clients', () => {
  it('runs the server with the configured deadlines', () => {
    expect(server.server.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.server.server.headersTimeout).toBe(Math.min(REQUEST_TIMEOUT_MS, 15_000));
  });

  it('cuts off a client sending its headers a byte a second', { timeout: 20_000 }, async () => {
    const client = await connect();
    const headers = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(20) + '\r\n\r\n';
    const sending = trickle(client, headers, 1000);
    const closedAt = await client.closedWithin(REQUEST_TIMEOUT_MS + 4000);
    const sent = await sending;
    expect(closedAt, 'closed by the server').not.toBeNull();
    expect(closedAt!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 200);
    expect(sent).toBeLessThan(headers.length);
    const res = parseResponse(client.received());
    if (res) expectErrorBody(res, 408);
    expect(await healthz()).toBe(200);
  });

  it('cuts off a client sending its body slower than the request deadline', { timeout: 20_000 }, async () => {
    const client = await connect();
    const body = JSON.stringify({ secret: 'x'.repeat(40), response: 'y'.repeat(40) });
    client.socket.write(
      `POST /api/v1/siteverify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const sending = trickle(client, body, 250); // ~25 s for the whole body
    const closedAt = await client.closedWithin(REQUEST_TIMEOUT_MS + 4000);
    const sent = await sending;
    expect(closedAt, 'closed by the server').not.toBeNull();
    expect(sent).toBeLessThan(body.length);
    const res = parseResponse(client.received());
    if (res) expectErrorBody(res, 408);
    expect(await healthz()).toBe(200);
  });
});

describe('oversized bodies', () => {
  const challengeHead = (length: string) =>
    `POST /api/v1/challenges HTTP/1.1\r\nHost: x\r\nOrigin: https://shop.example\r\nX-Forwarded-For: 10.1.2.3\r\nContent-Type: application/json\r\n${length}\r\n\r\n`;

  it(
    'answers 413 to a declared length above the limit without reading the body, then closes',
    { timeout: 15_000 },
    async () => {
      const client = await connect();
      client.socket.write(challengeHead(`Content-Length: ${100 * 1024 * 1024}`));
      client.socket.write('{"sitekey":"');
      const closedAt = await client.closedWithin(5000);
      expect(closedAt, 'closed by the server without waiting for 100 MB').not.toBeNull();
      expectErrorBody(parseResponse(client.received()), 413);
    },
  );

  it(
    'answers 413 to a chunked body that grows past the limit, then closes without reading on',
    { timeout: 20_000 },
    async () => {
      const client = await connect();
      client.socket.write(challengeHead('Transfer-Encoding: chunked'));
      const chunk = `4000\r\n${'a'.repeat(0x4000)}\r\n`;
      let sent = 0;
      const cap = 32 * 1024 * 1024;
      // Paced (64 KB each 10 ms, ~5 s for the cap), so the cut-off shows in the count.
      while (!client.closed() && sent < cap) {
        for (let i = 0; i < 4 && !client.closed(); i++) {
          client.socket.write(chunk);
          sent += 0x4000;
        }
        await sleep(10);
      }
      expect(client.closed(), 'closed by the server').toBe(true);
      expect(sent).toBeLessThan(cap / 4);
      expectErrorBody(parseResponse(client.received()), 413);
    },
  );

  it('answers an oversized siteverify in its own protocol, then closes', { timeout: 15_000 }, async () => {
    const client = await connect();
    client.socket.write(
      `POST /api/v1/siteverify HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\nsecret=`,
    );
    const closedAt = await client.closedWithin(5000);
    expect(closedAt).not.toBeNull();
    const res = parseResponse(client.received());
    expect(res?.status).toBe(200);
    expect(res?.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
  });
});

describe('idle connections', () => {
  it('keeps serving others while 200 connections sit idle, and closes the idle ones', { timeout: 30_000 }, async () => {
    const idle: RawClient[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const c = await connect();
        // Half say nothing at all, half stop in the middle of their headers.
        if (i % 2) c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
        idle.push(c);
      }
      for (let i = 0; i < 20; i++) {
        const started = Date.now();
        expect(await healthz()).toBe(200);
        expect(Date.now() - started).toBeLessThan(1000);
      }
      const verdict = await fetch(`http://127.0.0.1:${port}/api/v1/siteverify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret: '1x0000000000000000000000000000000AA', response: 'XXXX.DUMMY.TOKEN.XXXX' }),
        signal: AbortSignal.timeout(5000),
      });
      expect((await verdict.json()).success).toBe(true);
      // The header deadline reaps them too (checked every second at most).
      await Promise.all(idle.map((c) => c.closedWithin(REQUEST_TIMEOUT_MS + 4000)));
      expect(idle.filter((c) => !c.closed()).length).toBe(0);
    } finally {
      for (const c of idle) c.socket.destroy();
    }
  });
});
