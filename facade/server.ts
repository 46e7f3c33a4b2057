import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import { errorBody } from './errors.ts';

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

/**
 * The response a connection is writing or about to write, if any: Node keeps it on the socket
 * as `_httpMessage`, the field its own closeIdleConnections reads.
 */
function responseOn(socket: Socket): http.ServerResponse | null | undefined {
  return (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
}

/** Node's answer to a request it could not parse or that ran out of time, in our error shape. */
function clientErrorResponse(err: NodeJS.ErrnoException): string {
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? errorBody('ERR_HEADERS_TOO_LARGE', 'Request headers too large.')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errorBody('ERR_REQUEST_TIMEOUT', 'Request timed out.')
        : errorBody('ERR_BAD_REQUEST', 'Bad request.');
  const { status } = error;
  const body = JSON.stringify(error);
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export async function listen(app: Koa, opts: ListenOptions): Promise<RunningServer> {
  const headersTimeout = Math.min(opts.requestTimeoutMs, 15_000);
  // Node checks both timeouts only every connectionsCheckingInterval (30 s by default),
  // which would let a slow client outlive a short REQUEST_TIMEOUT_MS by that much.
  const handle = app.callback();
  const server = http.createServer(
    { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))) },
    (req, res) => void handle(req, res),
  );
  server.requestTimeout = opts.requestTimeoutMs;
  server.headersTimeout = headersTimeout;
  server.keepAliveTimeout = 5_000;
  // What Node does by default (400, 408 or 431, then close), with a JSON body of our shape.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const res = responseOn(socket as Socket);
    if (err.code !== 'ECONNRESET' && socket.writable && !res?.headersSent) {
      socket.write(clientErrorResponse(err));
      (socket as Socket).destroySoon();
    } else {
      socket.destroy();
    }
  });
  let closing = false;
  // The open connections, for draining (each one's response in flight is `responseOn` it).
  // Kept per connection, not per response: a set changed on every request made V8 resize its
  // table in the old generation each time, most of what a forward-auth check left there
  // (decision 0021).
  const connections = new Set<Socket>();
  function forget(this: Socket): void {
    connections.delete(this);
  }
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', forget);
  });
  // While draining, answer on kept-alive sockets with Connection: close so clients move on
  // and each socket closes once its last response is out.
  server.on('request', (_req, res) => {
    if (closing) res.setHeader('Connection', 'close');
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
      for (const socket of connections) {
        const res = responseOn(socket);
        if (res && !res.headersSent) res.setHeader('Connection', 'close');
      }
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
