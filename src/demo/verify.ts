import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../services.ts';
import { verifyToken, type Verdict } from '../captcha/siteverify.ts';

/**
 * The demo's server side, as a site's backend would do it: redeem the token once with the
 * site's secret. It calls the one-time verifier behind siteverify in-process rather than
 * POSTing to this service's own /api/v1/siteverify: over HTTP every demo post would come
 * from the service's loopback address and spend that address's siteverify budget (120 a
 * minute), so anyone could lock local integrations out through the open demo form.
 */

export interface DemoVerifyCall {
  secret: string;
  response: string;
  remoteip?: string;
  sitekey?: string;
}

/** The verdict siteverify would give, from the same verifier, with no HTTP round trip. */
export async function verifyDemoToken(services: Services, em: EntityManager, call: DemoVerifyCall): Promise<Verdict> {
  if (!services.config.tokenKey) throw new Error('TOKEN_KEY was not resolved at start');
  return verifyToken(
    {
      em,
      stores: services.stores,
      tokenKey: services.config.tokenKey,
      now: Date.now,
      testKeys: services.config.TEST_KEYS === 'on',
    },
    call,
  );
}

/** How many demo verifications one address may post per minute. */
export const DEMO_VERIFY_LIMIT = { max: 30, windowMs: 60_000 } as const;
