// Gateway mode's cost per request: Debian's nginx serving a static page directly, and the same
// page through `auth_request` to the service with a valid clearance cookie (the common case:
// a cleared person browsing), driven by Debian's wrk, alternating short runs so that other load
// on a shared machine falls on both alike. Prints the p99 latency the check adds and the
// service's CPU time per check (user + kernel, from /proc).
// Run: npx tsx bench/gateway.ts
//   BENCH_DURATION_SEC (default 4), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32)
//   BENCH_REDIS_URL: the service on Redis stores (one GET of the version stamp per check)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './lib/child.ts';
import { fmt } from './lib/load.ts';
import { hasWrk, loadAverage, runWrk, runWrkMeasured, type WrkResult } from './lib/wrk.ts';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { freePort } from '../test/helpers/ports.ts';
import { loadConfig } from '../src/config.ts';
import { openServices } from '../src/services.ts';
import { Gateway } from '../src/gateway/gateway.ts';
import { BENCH_HOST, seedGatewaySite } from './servers/gateway-site.ts';

const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';

interface GatewayInfo {
  port: number;
  cookie: string;
  userAgent: string;
}

/** nginx with two servers on one page: `direct` serves it, `gated` asks the service first. */
async function startNginx(root: string, service: number): Promise<{ direct: number; gated: number; stop(): void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-gw-nginx-'));
  const direct = await freePort();
  const gated = await freePort();
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  types { text/html html; }
  upstream auditcaptcha { server 127.0.0.1:${service}; keepalive 64; }
  server { listen 127.0.0.1:${direct}; root ${root}; }
  server {
    listen 127.0.0.1:${gated};
    root ${root};
    location / { auth_request /.auditcaptcha-auth; error_page 401 = @denied; }
    location @denied { return 401; }
    location = /.auditcaptcha-auth {
      internal;
      proxy_pass http://auditcaptcha/api/v1/gateway/auth/nginx;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-Host ${BENCH_HOST};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For $remote_addr;
    }
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null) throw new Error('nginx did not start');
  return {
    direct,
    gated,
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function line(name: string, r: WrkResult & { cpuUsPerRequest?: number }): string {
  const cpu = r.cpuUsPerRequest === undefined ? '' : `   service CPU ${fmt(r.cpuUsPerRequest, 0)} µs/check`;
  return `${name.padEnd(28)} ${fmt(r.rps, 0).padStart(7)} req/s   p50 ${fmt(r.p50, 2).padStart(6)} ms   p99 ${fmt(r.p99, 2).padStart(6)} ms   errors ${r.socketErrors + r.non2xx}/${r.requests}${cpu}`;
}

/**
 * The check alone, in this process, without HTTP: `Gateway.check` on a cleared browser's
 * request with the usual presets (the rules run, then the cookie's HMAC), CPU µs per check.
 */
async function inProcess(checks: number): Promise<number> {
  const config = loadConfig({
    TOKEN_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    CAPTCHA_ENGINE: 'never',
  });
  const services = await openServices(config, pino({ level: 'silent' }), { dataDir: null, keyPrefix: 'bench-gw:' });
  try {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
    const cookie = await seedGatewaySite(services, config, ua);
    const gateway = new Gateway(config, services.stores, () => services.orm.em.fork());
    const headers = {
      'x-original-uri': '/index.html',
      'x-forwarded-host': BENCH_HOST,
      'x-forwarded-for': '127.0.0.1',
      'user-agent': ua,
      cookie,
      accept: 'text/html',
    };
    const own = { method: 'GET', url: '/api/v1/gateway/auth/nginx' };
    const clearance = cookie.slice(cookie.indexOf('=') + 1);
    const check = () => gateway.check(gateway.original('127.0.0.1', headers, own, 'nginx'), headers, clearance);
    for (let i = 0; i < checks / 10; i++) await check();
    const before = process.cpuUsage();
    for (let i = 0; i < checks; i++) {
      const d = await check();
      if (d.outcome !== 'pass') throw new Error(`the clearance did not hold: ${d.outcome}`);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / checks;
  } finally {
    await services.close();
  }
}

export async function main(): Promise<void> {
  console.log(`in-process check (no HTTP): ${fmt(await inProcess(50_000), 1)} µs CPU per check`);
  if (!(await hasWrk())) throw new Error('wrk is not installed (apt-get install wrk)');
  if (spawnSync(NGINX, ['-v'], { stdio: 'ignore' }).status !== 0) throw new Error(`no nginx at ${NGINX}`);
  console.log(`load average before: ${loadAverage()}`);
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-gw-site-'));
  spawnSync('chmod', ['755', root]);
  writeFileSync(path.join(root, 'index.html'), `<!doctype html><title>bench</title><p>${'x'.repeat(2000)}</p>`);
  const service = await startChild<GatewayInfo>('bench/servers/gateway.ts', {
    BENCH_REDIS_URL: process.env.BENCH_REDIS_URL ?? '',
  });
  const nginx = await startNginx(root, service.info.port);
  try {
    const request = {
      method: 'GET' as const,
      path: '/index.html',
      headers: { 'user-agent': service.info.userAgent, cookie: service.info.cookie, accept: 'text/html' },
    };
    const at = (port: number) => ({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, requests: [request] });
    await runWrk({ ...at(nginx.direct), durationSec: 1 });
    await runWrk({ ...at(nginx.gated), durationSec: 1 });
    const pairs: Array<{ direct: WrkResult; gated: WrkResult & { cpuUsPerRequest: number } }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      const direct = await runWrk({ ...at(nginx.direct), durationSec: DURATION_SEC });
      const gated = await runWrkMeasured(service.child.pid!, { ...at(nginx.gated), durationSec: DURATION_SEC });
      if (gated.non2xx) throw new Error(`${gated.non2xx} gated requests were refused: the clearance did not hold`);
      pairs.push({ direct, gated });
    }
    const added = pairs.map((p) => p.gated.p99 - p.direct.p99).sort((a, b) => a - b);
    const mid = pairs.find((p) => p.gated.p99 - p.direct.p99 === added[Math.floor(added.length / 2)])!;
    console.log(line('nginx, static page', mid.direct));
    console.log(line('nginx + auth_request (cookie)', mid.gated));
    console.log(
      `p99 added by the check: ${fmt(added[Math.floor(added.length / 2)], 2)} ms (rounds: ${added.map((a) => fmt(a, 2)).join(', ')}); ` +
        `service CPU per check: ${fmt(mid.gated.cpuUsPerRequest, 0)} µs; ${CONNECTIONS} connections, ${process.env.BENCH_REDIS_URL ? 'Redis' : 'memory'} stores`,
    );
    console.log(`load average after: ${loadAverage()}`);
  } finally {
    nginx.stop();
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
