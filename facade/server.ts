import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (closing idle keep-alive
   * connections at once), and after `timeoutMs` cuts what is left.
   */
  close(timeoutMs: number): Promise<void>;
}

export interface ListenOptions {
  port: number;
  host?: string;
  /** Whole-request deadline; also bounds slow-loris bodies. */
  requestTimeoutMs: number;
}

export async function listen(app: Koa, opts: ListenOptions): Promise<RunningServer> {
  const server = http.createServer(app.callback());
  server.requestTimeout = opts.requestTimeoutMs;
  server.headersTimeout = Math.min(opts.requestTimeoutMs, 15_000);
  server.keepAliveTimeout = 5_000;
  let closing = false;
  const inFlight = new Set<http.ServerResponse>();
  // While draining, answer on kept-alive sockets with Connection: close so clients move on
  // and each socket closes once its last response is out.
  server.on('request', (_req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close(timeoutMs) {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
