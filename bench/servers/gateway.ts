// The real service for the gateway benchmark, in its own process: embedded PGlite in memory,
// memory stores (or BENCH_REDIS_URL), one site protecting host `bench.localhost` with the
// usual presets, and a clearance cookie for a client at 127.0.0.1 with User-Agent `wrk-bench`.
// Prints {port, cookie, userAgent} once listening.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { openServices } from '../../src/services.ts';
import { createApp } from '../../facade/app.ts';
import { listen } from '../../facade/server.ts';
import { seedGatewaySite } from './gateway-site.ts';

const USER_AGENT = 'wrk-bench';

const config = loadConfig({
  TOKEN_KEY: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
});
const services = await openServices(config, pino({ level: 'silent' }), {
  dataDir: null,
  keyPrefix: `bench:${randomBytes(4).toString('hex')}:`,
});
const cookie = await seedGatewaySite(services, config, USER_AGENT);
const server = await listen(createApp(services), { port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000 });
console.log(JSON.stringify({ port: server.port, cookie, userAgent: USER_AGENT }));
process.on('SIGTERM', () => {
  void (async () => {
    await server.close(5000);
    await services.close();
    process.exit(0);
  })();
});
