/**
 * The guarded proxy as a page would abuse it for egress: tunnels only to the web's ports,
 * and what the page sends counted against the same budget as what it receives.
 */
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AddressGuard } from '../../../src/analyzer/address-guard.ts';
import { startGuardedProxy, type GuardedProxy } from '../../../src/analyzer/render/proxy.ts';

let upstream: http.Server;
let upstreamPort: number;
let received = 0;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const proxyFor = (maxBytes: number): Promise<GuardedProxy> =>
  startGuardedProxy({
    guard: new AddressGuard({ allowPrivate: true }),
    connectTimeoutMs: 1000,
    maxBytes,
  });

/** Sends a CONNECT for `authority` and returns the proxy's status line. */
function tunnel(proxy: GuardedProxy, authority: string): Promise<string> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    socket.once('data', (chunk) => {
      resolve(chunk.toString('latin1').split('\r\n')[0]);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

it('tunnels go to ports 80 and 443 only', async () => {
  const proxy = await proxyFor(1e6);
  try {
    expect(await tunnel(proxy, `127.0.0.1:${upstreamPort}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await tunnel(proxy, '127.0.0.1:25')).toBe('HTTP/1.1 403 Forbidden');
    expect(proxy.blocked.map((b) => b.reason)).toEqual([
      `Tunnels go to ports 80 and 443 only, not ${upstreamPort}.`,
      'Tunnels go to ports 80 and 443 only, not 25.',
    ]);
  } finally {
    await proxy.close();
  }
});

it('counts what the page uploads and cuts it past the budget', async () => {
  const proxy = await proxyFor(64 * 1024);
  const { port } = new URL(proxy.url);
  received = 0;
  try {
    const outcome = await new Promise<string>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port: Number(port),
        method: 'POST',
        path: `http://127.0.0.1:${upstreamPort}/upload`,
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(`answered ${res.statusCode}`));
        res.on('error', () => resolve('cut'));
      });
      req.on('error', () => resolve('cut'));
      const chunk = Buffer.alloc(16 * 1024, 1);
      let sent = 0;
      const pump = (): void => {
        while (sent < 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    expect(outcome).toBe('cut');
    expect(proxy.overBudget).toBe(true);
    expect(proxy.bytesOut).toBeGreaterThan(64 * 1024);
    expect(received).toBeLessThan(1024 * 1024);
  } finally {
    await proxy.close();
  }
});
