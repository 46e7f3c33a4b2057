// The real service for benchmarks, in its own process: embedded PGlite in memory (or
// BENCH_DATABASE_URL), memory stores (or BENCH_REDIS_URL), one registered site. Prints
// {port, sitekey, secret, tokenKey} once listening.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { openServices } from '../../src/services.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { createApp } from '../../facade/app.ts';
import { listen } from '../../facade/server.ts';

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
const server = await listen(createApp(services), {
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
