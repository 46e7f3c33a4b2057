/**
 * A VPN for the tests' person: a TCP forwarder on 127.0.0.1 that connects to the service from
 * another loopback address (`exit`, which the test's ASN dataset maps to a hosting network),
 * so the service sees the person's requests come from the VPN's exit, as it would a commercial
 * VPN's. It reads nothing but the request lines passing through (the image's address, which a
 * person reads off the screen and a test cannot), and every connection ends with the forwarder.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Vpn {
  /** `http://127.0.0.1:<port>`: the service as seen through the VPN. */
  url: string;
  /** Request lines (`GET /path HTTP/1.1`) seen so far, oldest first. */
  requests: string[];
  close(): Promise<void>;
}

export async function startVpn(service: string, exit: string): Promise<Vpn> {
  const target = new URL(service);
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port), localAddress: exit });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setTimeout(60_000, () => s.destroy());
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      for (const m of chunk.toString('latin1').matchAll(/^(GET|POST|OPTIONS) (\S+) HTTP\/1\.1\r$/gm))
        requests.push(`${m[1]} ${m[2]}`);
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
