// The real service for benchmarks, in its own process: embedded PGlite in memory (or
// BENCH_DATABASE_URL), memory stores (or BENCH_REDIS_URL), one registered site. Prints
// {port, sitekey, secret, tokenKey} once listening.
// BENCH_APP=bare-koa: the same services and siteverify() behind the peers' app instead of ours
// (bare Koa and koa-body, bench/servers/peers.ts), with no facade: the domain's verification
// like for like with the peers', and, beside the service, what our HTTP layer costs.
import { randomBytes } from 'node:crypto';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { openServices } from '../../src/services.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { createApp } from '../../facade/app.ts';
import { listen } from '../../facade/server.ts';
import { siteverify, type SiteverifyInput } from '../../src/captcha/siteverify.ts';
import type { Services } from '../../routers/context.ts';
import { captchaDeps } from '../../routers/captcha-deps.ts';

/**
 * What captchaDeps() reads, per request, with the EntityManager forked when first read, as
 * the facade's context does (a class: an object literal's getter costs V8 a hidden class per object).
 */
class RequestSources {
  readonly config: Services['config'];
  readonly stores: Services['stores'];
  readonly engineReference: Services['engineReference'];
  readonly analytics: Services['analytics'];
  readonly networks: Services['networks'];
  #em: ReturnType<Services['orm']['em']['fork']> | undefined = undefined;
  constructor(private readonly services: Services) {
    this.config = services.config;
    this.stores = services.stores;
    this.engineReference = services.engineReference;
    this.analytics = services.analytics;
    this.networks = services.networks;
  }
  get em() {
    return (this.#em ??= this.services.orm.em.fork());
  }
}

/** siteverify() on bare Koa and koa-body, as the peers are served: a verdict or a refusal's status. */
function siteverifyOnBareKoa(services: Services): Koa {
  const app = new Koa({ proxy: services.config.TRUST_PROXY, maxIpsCount: 1 });
  app.use(koaBody({ json: true, urlencoded: true }));
  // The service's own dependencies, made for each request as the procedure makes them.
  app.use(async (ctx) => {
    const input = (ctx.request.body ?? {}) as SiteverifyInput;
    const outcome = await siteverify(captchaDeps(new RequestSources(services)), input, {
      route: ctx.path,
      ip: ctx.ip,
    });
    if ('refused' in outcome) ctx.status = outcome.refused === 'rate-limited' ? 429 : 503;
    else ctx.body = outcome.verdict;
  });
  return app;
}

const config = loadConfig({
  TOKEN_KEY: process.env.BENCH_TOKEN_KEY ?? randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  TRUST_PROXY: 'true',
  API_RATE_LIMIT: '100000000',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
});
const services = await openServices(config, pino({ level: 'silent' }), {
  dataDir: null,
  keyPrefix: `bench:${randomBytes(4).toString('hex')}:`,
});
const em = services.orm.em.fork();
const user = await createUser(em, { name: 'bench' });
const { key } = await createApiKey(em, user, 'bench');
const { site, secret } = await createSite(em, user.id, { name: 'bench', origins: ['https://bench.example'] });
const app = process.env.BENCH_APP === 'bare-koa' ? siteverifyOnBareKoa(services) : createApp(services);
const server = await listen(app, {
  port: Number(process.env.PORT ?? 0),
  host: '127.0.0.1',
  requestTimeoutMs: 30_000,
});
console.log(
  JSON.stringify({
    port: server.port,
    sitekey: site.sitekey,
    secret,
    apiKey: key,
    tokenKey: config.tokenKey!.toString('hex'),
  }),
);
process.on('SIGTERM', () => {
  void (async () => {
    await server.close(5000);
    await services.close();
    process.exit(0);
  })();
});
