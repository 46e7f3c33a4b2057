/**
 * The undici Agent of one analysis: connects only to addresses the guard pinned, offers
 * HTTP/2 through ALPN, and remembers which protocol each origin negotiated.
 */
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { hostKey, type AddressGuard } from './address-guard.ts';
import { AnalyzeError } from './errors.ts';

/** An Agent plus what its connections negotiated. */
export interface PinnedAgent {
  readonly agent: Agent;
  /** "2.0" when the origin's connection negotiated h2, "1.1" otherwise (undefined if never connected). */
  httpVersionOf(url: URL): string | undefined;
  /** Close all connections. */
  close(): Promise<void>;
}

/** Settings for {@link createPinnedAgent}. */
export interface PinnedAgentSettings {
  connectTimeoutMs: number;
  /** Upper bound for undici's own header and body timeouts. */
  totalTimeoutMs: number;
}

/**
 * Create an Agent whose connector replaces the host name with the address `guard` pinned
 * for it (TLS still uses the host name for SNI and certificate checks). A host the guard
 * has not pinned is refused, so nothing can connect to an unchecked address.
 */
export function createPinnedAgent(guard: AddressGuard, settings: PinnedAgentSettings): PinnedAgent {
  const protocols = new Map<string, string>();
  const base = buildConnector({ allowH2: true, timeout: settings.connectTimeoutMs });

  const connect: buildConnector.connector = (options, callback) => {
    const address = guard.pinned(options.hostname);
    if (!address) {
      callback(
        new AnalyzeError(
          'forbidden_address',
          `The host ${hostKey(options.hostname)} was not checked before connecting.`,
        ),
        null,
      );
      return;
    }
    const key = `${options.protocol}//${options.host ?? options.hostname}`;
    base({ ...options, hostname: address }, (...args) => {
      const [err, socket] = args;
      if (!err && socket) protocols.set(key, (socket as TLSSocket).alpnProtocol || 'http/1.1');
      callback(...args);
    });
  };

  const agent = new Agent({
    connect,
    allowH2: true,
    headersTimeout: settings.totalTimeoutMs,
    bodyTimeout: settings.totalTimeoutMs,
    keepAliveTimeout: 4_000,
  });

  return {
    agent,
    httpVersionOf(url: URL): string | undefined {
      const protocol = protocols.get(`${url.protocol}//${url.host}`);
      if (protocol === undefined) return undefined;
      return protocol === 'h2' ? '2.0' : '1.1';
    },
    async close(): Promise<void> {
      await agent.destroy().catch(() => undefined);
    },
  };
}
