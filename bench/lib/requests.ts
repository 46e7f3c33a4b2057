// Requests the benches send the service (bench/servers/service.ts), built ahead of a run.
import { newTokenId, sealToken } from '../../src/captcha/tokens.ts';
import type { WrkRequest } from './wrk.ts';

/** A client address per request, so per-address limits stay out of the way. */
export const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** What the bench service prints once listening that these requests need. */
export interface BenchSite {
  sitekey: string;
  secret: string;
  /** TOKEN_KEY, hex. */
  tokenKey: string;
}

/**
 * `n` siteverify requests, each with a fresh token sealed under the service's key (a token
 * repeated would be answered as spent, a cheaper path) and from its own client address.
 */
export function siteverifyRequests(site: BenchSite, n: number): WrkRequest[] {
  const key = Buffer.from(site.tokenKey, 'hex');
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    method: 'POST',
    path: '/api/v1/siteverify',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address(i) },
    body: JSON.stringify({
      secret: site.secret,
      response: sealToken(
        {
          id: newTokenId(),
          site: site.sitekey,
          hostname: 'bench.example',
          iat: now,
          kind: 'v3',
          action: 'bench',
          score: 0.9,
          cdata: null,
          net: null,
          reasons: [],
        },
        key,
      ),
    }),
  }));
}

/** `n` v2 or v3 challenge creations from the bench site's origin, each from its own address. */
export function challengeRequests(version: 'v2' | 'v3', sitekey: string, origin: string, n: number): WrkRequest[] {
  const body = JSON.stringify({ sitekey, action: 'bench' });
  return Array.from({ length: n }, (_, i) => ({
    method: 'POST',
    path: `/api/${version}/challenges`,
    headers: { 'content-type': 'application/json', origin, 'x-forwarded-for': address(i) },
    body,
  }));
}
