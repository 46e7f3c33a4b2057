import { createSocket, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

/** A name server on loopback UDP for tests. */
export interface TestNameServer {
  /** `127.0.0.1:<port>`, for ANALYZER_DNS_SERVERS. */
  readonly address: string;
  /** Queries received for names in the stalled zone. */
  readonly stalledQueries: number;
  /** Queries received for names in the slow zone. */
  readonly slowQueries: number;
  close(): Promise<void>;
}

export interface TestNameServerOptions {
  /** Names in this zone (and the zone itself) are never answered, as a hostile name server does. */
  stallZone: string;
  /** Names answered with A records; everything else is NXDOMAIN. */
  records?: Record<string, string>;
  /** A zone answered as the others, but each answer only after `slowMs`. */
  slowZone?: string;
  slowMs?: number;
  /** Reverse names (`4.3.2.1.in-addr.arpa`) answered with PTR records (several: one record each). */
  ptr?: Record<string, string | string[]>;
}

function inZone(name: string, zone: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === zone || n.endsWith(`.${zone}`);
}

/** Start a name server that never answers `stallZone` and answers `records` (A) at once. */
export async function startTestNameServer(opts: TestNameServerOptions): Promise<TestNameServer> {
  const socket: Socket = createSocket('udp4');
  let stalledQueries = 0;
  let slowQueries = 0;
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    if (inZone(question.name, opts.stallZone)) {
      stalledQueries++;
      return; // never answered
    }
    const name = question.name.toLowerCase();
    const ptr = question.type === 'PTR' ? opts.ptr?.[name] : undefined;
    const address = question.type === 'A' ? opts.records?.[name] : undefined;
    const answers: dnsPacket.Answer[] = address
      ? [{ type: 'A', name: question.name, ttl: 60, data: address }]
      : ptr
        ? [ptr].flat().map((data): dnsPacket.Answer => ({ type: 'PTR', name: question.name, ttl: 60, data }))
        : [];
    const found = opts.records?.[name] ?? ptr;
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (found ? 0 : 3), // 3: NXDOMAIN
      questions: [question],
      answers,
    });
    const slow = opts.slowZone !== undefined && inZone(question.name, opts.slowZone);
    if (slow) slowQueries++;
    if (slow) setTimeout(() => socket.send(reply, peer.port, peer.address), opts.slowMs ?? 0).unref();
    else socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    get stalledQueries() {
      return stalledQueries;
    },
    get slowQueries() {
      return slowQueries;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
