import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../routers/context.ts';
import type { Gateway, GatewayDecision } from '../src/gateway/gateway.ts';
import { PROXY_PROTOCOLS, type ProxyProtocol } from '../src/gateway/forwarded.ts';
import { clearanceFromCookieHeader } from '../src/gateway/clearance.ts';
import { toErrorResponse } from './errors.ts';

/**
 * The forward-auth endpoint every proxy points at (docs/gateway.md), one per proxy protocol:
 * `/api/v1/gateway/auth/nginx`, `/caddy`, `/traefik`. The path is the proxy's configuration,
 * never the client's, so it says which headers carry the original request.
 */
export const GATEWAY_AUTH_PATH = '/api/v1/gateway/auth/{proxy}';
const AUTH_PREFIX = '/api/v1/gateway/auth/';

/** Answers the request when it is for the endpoint (true), else leaves it to Koa (false). */
export type ForwardAuthListener = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The protocol a request path under {@link AUTH_PREFIX} names (the query ignored), or null. */
function protocolOf(url: string): ProxyProtocol | null {
  const query = url.indexOf('?', AUTH_PREFIX.length);
  const name = query < 0 ? url.slice(AUTH_PREFIX.length) : url.slice(AUTH_PREFIX.length, query);
  return (PROXY_PROTOCOLS as readonly string[]).includes(name) ? (name as ProxyProtocol) : null;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(`${text}\n`);
}

/**
 * The proxies' forward-auth protocol, answered ahead of Koa's middleware (decision 0019): a
 * proxy asks about every request of a protected site, each image and script included, so the
 * check costs what a cookie check should. It reads the request once, decides
 * (`Gateway.check`), counts the decision in `gateway_checks_total` (not in the HTTP request
 * metrics), and answers in the asking proxy's protocol. A pass carries
 * `Cache-Control: max-age=GATEWAY_PASS_CACHE_SECONDS` for nginx's `proxy_cache`; nothing else
 * is ever cacheable. Passes and refusals of assets are logged at debug, challenges and
 * denials at info with their rule. It serves no other path and no procedure.
 */
export function forwardAuthListener(services: Services, gateway: Gateway): ForwardAuthListener {
  const { log, metrics, config } = services;
  const passCache = config.GATEWAY_PASS_CACHE_SECONDS > 0 ? `max-age=${config.GATEWAY_PASS_CACHE_SECONDS}` : 'no-store';

  /** A decision in the way the asking proxy understands it. */
  const answer = (res: ServerResponse, d: GatewayDecision, protocol: ProxyProtocol) => {
    if (d.outcome === 'pass') {
      // The answer to almost every check, written without the others' shared headers object.
      res.writeHead(204, {
        'X-Gateway-Outcome': 'pass',
        'X-Gateway-Rule': encodeURIComponent(d.rule),
        'Cache-Control': passCache,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end();
      return;
    }
    const decided = { 'X-Gateway-Outcome': d.outcome, 'X-Gateway-Rule': encodeURIComponent(d.rule) };
    switch (d.outcome) {
      case 'challenge':
        // nginx's auth_request takes only 2xx, 401 and 403: its `error_page 401` shows the page.
        if (protocol === 'nginx') return plain(res, 401, 'A browser check is needed.', decided);
        res.writeHead(302, {
          ...decided,
          Location: d.location!,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end();
        return;
      case 'refuse':
        return plain(res, 401, d.reason!, decided);
      case 'deny':
      case 'unknown':
        return plain(res, 403, d.reason!, decided);
    }
  };

  const logDecision = (d: GatewayDecision) => {
    const important = d.outcome === 'challenge' || d.outcome === 'deny' || d.outcome === 'unknown';
    if (!log.isLevelEnabled(important ? 'info' : 'debug')) return;
    const fields = {
      outcome: d.outcome,
      rule: d.rule,
      host: d.original.host,
      path: d.original.target.ok ? d.original.target.path : undefined,
      ip: d.original.ip,
    };
    if (important) log.info(fields, 'gateway check');
    else log.debug(fields, 'gateway check');
  };

  const check = async (req: IncomingMessage, res: ServerResponse, protocol: ProxyProtocol) => {
    try {
      const { headers } = req;
      const original = gateway.original(
        req.socket.remoteAddress ?? '',
        headers,
        { method: req.method ?? '', url: req.url ?? '' },
        protocol,
      );
      const d = await gateway.check(original, headers, clearanceFromCookieHeader(headers.cookie));
      metrics.countGatewayCheck(d.outcome, d.rule);
      logDecision(d);
      answer(res, d, protocol);
    } catch (err) {
      // What the error handler answers on Koa's routes, in the same shape (no procedure here).
      const failed = toErrorResponse(err);
      if (failed.unexpected) log.error({ err }, 'gateway check failed');
      if (res.headersSent) return void res.destroy();
      res.writeHead(failed.status, {
        ...failed.headers,
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(JSON.stringify(failed.body));
    }
  };

  return (req, res) => {
    const url = req.url;
    if (url === undefined || !url.startsWith(AUTH_PREFIX)) return false;
    const protocol = protocolOf(url);
    if (!protocol) plain(res, 404, `No such proxy protocol: use one of ${PROXY_PROTOCOLS.join(', ')}.`);
    else void check(req, res, protocol);
    return true;
  };
}
