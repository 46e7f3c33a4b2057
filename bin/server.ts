// The service's entry point (`npm start`): configuration, services, the HTTP server and
// graceful shutdown. Compiled to dist/bin/server.js for production; `npm run dev` runs it with tsx.
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openServices } from '../src/services.ts';
import { ensureInitialAccount } from '../src/accounts/users.ts';
import { createApp } from '../facade/app.ts';
import { listen } from '../facade/server.ts';
import { startDemo } from '../src/demo/site.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL);
  const services = await openServices(config, log);
  const initial = await ensureInitialAccount(services.orm.em.fork());
  if (initial) {
    // Printed once, on the first start against an empty database; only its hash is kept.
    console.log(`API key (shown once, keep it): ${initial.key}`);
  }
  const app = createApp(services);
  const server = await listen(app, {
    port: config.PORT,
    host: config.HOST,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  log.info(
    {
      port: server.port,
      host: config.HOST,
      database: config.embedded ? 'pglite' : 'postgresql',
      store: services.stores.kind,
    },
    'listening',
  );
  console.log(`Listening on http://localhost:${server.port} (API reference: /api/docs)`);
  if (config.embedded) await startDemo(services, server.port);
  // The shared job queue (site audits, webhooks) starts once the service answers; a queue that
  // cannot start leaves audits answering 503 and everything else serving.
  services.startQueue().catch((err: unknown) => log.error({ err }, 'the job queue did not start: audits are off'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    await server.close(config.SHUTDOWN_TIMEOUT_MS);
    await services.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(`Failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
