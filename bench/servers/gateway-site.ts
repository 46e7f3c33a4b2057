// The gateway benchmark's site, made alike for its service process (bench/servers/gateway.ts)
// and its in-process check (bench/gateway.ts): one site protecting `bench.localhost` with the
// usual presets, and a clearance cookie for a client at 127.0.0.1 with `userAgent`.
import type { Config } from '../../src/config.ts';
import type { Services } from '../../src/services.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { setGateway } from '../../src/gateway/sites.ts';
import { CLEARANCE_COOKIE, issueClearance } from '../../src/gateway/clearance.ts';

export const BENCH_HOST = 'bench.localhost';

/** Creates the site and returns the `Cookie` header value of a cleared visitor. */
export async function seedGatewaySite(services: Services, config: Config, userAgent: string): Promise<string> {
  const em = services.orm.em.fork();
  const user = await createUser(em, { name: 'bench' });
  const { site } = await createSite(em, user.id, { name: 'bench', origins: [`https://${BENCH_HOST}`] });
  await setGateway(em, services.stores, user.id, site.sitekey, {
    hosts: [BENCH_HOST],
    clearance_ttl: 86_400,
    contact: '',
    rules: [
      { name: 'search', preset: 'search-crawlers', action: 'allow' },
      { name: 'feeds', preset: 'feeds', action: 'allow' },
      { name: 'previews', preset: 'link-previews', action: 'allow' },
      { name: 'ai', preset: 'ai-crawlers', action: 'deny' },
    ],
    thresholds: { challenge: 10, deny: 50 },
    default_action: 'challenge',
    // The bench measures a check's cost on one clearance: its pace is set out of reach.
    pace: { burst: 1_000_000, per_minute: 1_000_000, per_day: 100_000_000 },
  });
  const value = issueClearance(
    config.tokenKey!,
    { sitekey: site.sitekey, ip: '127.0.0.1', userAgent },
    Date.now(),
    86_400,
  );
  return `${CLEARANCE_COOKIE}=${value}`;
}
