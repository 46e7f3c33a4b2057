/**
 * The guarded forward proxy every browser connection goes through.
 *
 * Chromium is told to use it for everything, loopback included (`--proxy-bypass-list=<-loopback>`),
 * so the browser itself never resolves or connects to a host. For each request (plain HTTP,
 * CONNECT tunnels for HTTPS and WebSockets, and absolute-URI upgrades) the proxy asks the
 * analysis' {@link AddressGuard} for the host: every resolved address must pass the policy, and
 * the connection goes to the address that was checked (pinned), so DNS rebinding between check
 * and connect is impossible. A refused host gets a 403 and is recorded in {@link GuardedProxy.blocked}.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressGuard } from '../address-guard.ts';
import { AnalyzeError } from '../errors.ts';

/** A request the guard refused. */
export interface BlockedRequest {
  /** `http://host/path` for plain requests, `host:port` for tunnels. */
  target: string;
  reason: string;
}

/** Settings of one proxy listener. */
export interface GuardedProxySettings {
  guard: AddressGuard;
  /** TCP connect timeout to the upstream, ms. */
  connectTimeoutMs: number;
  /** Most bytes relayed in total, each way (from upstreams, and from the page); beyond it every connection is cut. */
  maxBytes: number;
}

/** Ports a tunnel (CONNECT) may reach: the web's. Anything else would make the browser an open relay. */
export const tunnelPorts: ReadonlySet<number> = new Set([80, 443]);

/** A running proxy listener on 127.0.0.1. */
export interface GuardedProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's proxy setting. */
  readonly url: string;
  /** Requests refused by the guard, in order (at most 200 kept). */
  readonly blocked: BlockedRequest[];
  /** Bytes relayed from upstreams so far. */
  readonly bytesIn: number;
  /** Bytes relayed from the page to upstreams so far. */
  readonly bytesOut: number;
  /** True once `maxBytes` was exceeded. */
  readonly overBudget: boolean;
  /**
   * Hand the proxy to an analysis: its guard, timeout and byte budget from now on, and an empty
   * `blocked` list. A spare context's proxy (browser.ts) starts with settings that refuse
   * everything and gets the analysis' settings when the context is taken.
   */
  assign(settings: GuardedProxySettings): void;
  close(): Promise<void>;
}

/** Set on the proxy's own 403 answers, so a refused document is told apart from a site's 403. */
export const refusedHeader = 'x-address-guard-refused';

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function splitHostPort(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1], port };
}

function refusalReason(err: unknown): string {
  return err instanceof AnalyzeError ? err.message : 'The host could not be checked.';
}

/** Start a guarded proxy listener for one analysis. */
export async function startGuardedProxy(initial: GuardedProxySettings): Promise<GuardedProxy> {
  let settings = initial;
  const blocked: BlockedRequest[] = [];
  const sockets = new Set<Duplex>();
  let bytesIn = 0;
  let bytesOut = 0;
  let overBudget = false;

  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const block = (target: string, err: unknown): void => {
    if (blocked.length < 200) blocked.push({ target, reason: refusalReason(err) });
  };
  const cutAll = (): void => {
    overBudget = true;
    for (const s of sockets) s.destroy();
  };
  const count = (chunk: Buffer): void => {
    bytesIn += chunk.length;
    if (!overBudget && bytesIn > settings.maxBytes) cutAll();
  };
  const countOut = (chunk: Buffer): void => {
    bytesOut += chunk.length;
    if (!overBudget && bytesOut > settings.maxBytes) cutAll();
  };

  /** Resolve and check the host; the address to connect to, or undefined when refused. */
  const pin = async (url: URL, target: string): Promise<string | undefined> => {
    try {
      return await settings.guard.pin(url);
    } catch (err) {
      block(target, err);
      return undefined;
    }
  };

  const openUpstream = (address: string, port: number): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = netConnect({ host: address, port, timeout: settings.connectTimeoutMs });
      track(socket);
      socket.once('connect', () => {
        socket.setTimeout(0);
        resolve(socket);
      });
      socket.once('timeout', () => socket.destroy(new Error('connect timeout')));
      socket.once('error', reject);
    });

  const server: Server = createServer((req, res) => {
    void (async () => {
      let url: URL;
      try {
        url = new URL(req.url ?? '');
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (url.protocol !== 'http:' || overBudget) {
        res.writeHead(overBudget ? 509 : 400).end();
        return;
      }
      const address = await pin(url, `${url.origin}${url.pathname}`);
      if (!address) {
        res.writeHead(403, { 'content-type': 'text/plain', [refusedHeader]: '1' }).end('Refused by the address guard.');
        return;
      }
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
      }
      const upstream = httpRequest(
        {
          host: address,
          port: Number(url.port || 80),
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers,
          setHost: false,
          timeout: settings.connectTimeoutMs,
        },
        (upRes) => {
          const out: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(upRes.headers)) {
            if (value !== undefined && !hopByHop.has(name) && name !== refusedHeader) out[name] = value;
          }
          res.writeHead(upRes.statusCode ?? 502, out);
          upRes.on('data', count);
          upRes.pipe(res);
        },
      );
      upstream.on('socket', track);
      upstream.on('timeout', () => upstream.destroy(new Error('upstream timeout')));
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      req.on('data', countOut);
      req.pipe(upstream);
    })();
  });

  /** CONNECT host:port: HTTPS and WebSocket tunnels. */
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    void (async () => {
      const target = req.url ?? '';
      const parts = splitHostPort(target);
      if (!parts || overBudget) {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      if (!tunnelPorts.has(parts.port)) {
        if (blocked.length < 200)
          blocked.push({ target, reason: `Tunnels go to ports 80 and 443 only, not ${parts.port}.` });
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      const address = await pin(new URL(`https://${parts.host}:${parts.port}/`), target);
      if (!address) {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      try {
        const upstream = await openUpstream(address, parts.port);
        upstream.on('error', () => client.destroy());
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.on('data', count);
        client.on('data', countOut);
        upstream.pipe(client);
        client.pipe(upstream);
      } catch {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      }
    })();
  });

  /** Absolute-URI upgrade requests (ws:// through a plain proxy request). */
  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    void (async () => {
      let url: URL;
      try {
        url = new URL(req.url ?? '');
      } catch {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'ws:') {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      const address = await pin(url, `${url.origin}${url.pathname}`);
      if (!address) {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      try {
        const upstream = await openUpstream(address, Number(url.port || 80));
        upstream.on('error', () => client.destroy());
        const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          if (!/^proxy-/i.test(req.rawHeaders[i])) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        }
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.on('data', count);
        client.on('data', countOut);
        upstream.pipe(client);
        client.pipe(upstream);
      } catch {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      }
    })();
  });

  server.on('connection', track);
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    blocked,
    get bytesIn() {
      return bytesIn;
    },
    get bytesOut() {
      return bytesOut;
    },
    get overBudget() {
      return overBudget;
    },
    assign(next) {
      settings = next;
      blocked.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
