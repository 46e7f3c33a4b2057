/**
 * The demo's server side, as a site's backend would do it: redeem the token at siteverify
 * over HTTP. It calls this very service on the address the request came in on (never on the
 * Host header, which the client chooses and which would otherwise receive the secret).
 */

/** `http://addr:port` of a local socket address (IPv4-mapped IPv6 unwrapped, IPv6 bracketed). */
export function selfUrl(localAddress: string | undefined, localPort: number | undefined): string {
  let host = localAddress || '127.0.0.1';
  if (host.startsWith('::ffff:') && host.includes('.')) host = host.slice(7);
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${localPort ?? 80}`;
}

export interface SiteverifyCall {
  secret: string;
  response: string;
  remoteip?: string;
  sitekey?: string;
}

/** POSTs JSON to `${base}/api/v1/siteverify`; status 0 and no verdict when it cannot be reached. */
export async function siteverifyOverHttp(base: string, call: SiteverifyCall): Promise<{ status: number; verdict: Record<string, unknown> | null }> {
  try {
    const res = await fetch(`${base}/api/v1/siteverify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(call),
      signal: AbortSignal.timeout(10_000),
    });
    const verdict = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, verdict };
  } catch {
    return { status: 0, verdict: null };
  }
}
