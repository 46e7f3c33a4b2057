// Gateway mode's cost per request, as a site owner sees it: Debian's nginx serving a static
// page directly, through `auth_request` to the service uncached, and through the documented
// `proxy_cache` of pass answers (docs/gateway.md), each with a valid clearance cookie (the
// common case: a cleared person browsing), driven by Debian's wrk at 8 and 32 connections,
// the three side by side in each round so that other load on a shared machine falls on all
// alike. Prints the table of the issue: requests a second (and the share of nginx alone), p99
// (and what the check adds), and the service's CPU a check (user + kernel from /proc, divided
// by the checks it answered, read from its gateway_checks_total).
// Run: npx tsx bench/gateway.ts
//   BENCH_DURATION_SEC (default 3), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 8,32)
//   BENCH_REDIS_URL: the service on Redis stores
//   BENCH_CACHE_TMPFS (default /dev/shm): the tmpfs nginx's cache of passes is kept on
//   BENCH_CPU_PROF=dir: a CPU profile of the service, and its top self time over the rounds
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './lib/child.ts';
import { fmt } from './lib/load.ts';
import { cpuTimes, hasWrk, loadAverage, runWrk, runWrkMeasured } from './lib/wrk.ts';
import { monotonicUs, newestProfile, printTopSelfTime } from './lib/cpu-profile.ts';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { freePort } from '../test/helpers/ports.ts';
import { loadConfig } from '../src/config.ts';
import { openServices } from '../src/services.ts';
import { Gateway } from '../src/gateway/gateway.ts';
import { BENCH_HOST, seedGatewaySite } from './servers/gateway-site.ts';

const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '8,32').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
/** A memory-backed file system for nginx's cache of passes (docs/gateway.md, "The proxy's cache"). */
const CACHE_TMPFS = process.env.BENCH_CACHE_TMPFS || '/dev/shm';

interface GatewayInfo {
  port: number;
  cookie: string;
  userAgent: string;
}

/** The auth subrequest's location as docs/gateway.md gives it, with `extra` (the cache) inside. */
function authLocation(upstream: string, extra = ''): string {
  return `location = /.auditcaptcha-auth {
      internal;
      proxy_pass http://${upstream}/api/v1/gateway/auth/nginx;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-Host ${BENCH_HOST};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For $remote_addr;${extra}
    }`;
}

/** The documented cache of pass answers (docs/gateway.md, "The proxy's cache"). */
const CACHE = `
      proxy_cache auditcaptcha_auth;
      proxy_cache_key "${BENCH_HOST} $request_method $request_uri $remote_addr $http_user_agent $cookie___auditcaptcha_clearance";
      open_file_cache max=1000 inactive=10s;`;

interface Nginx {
  direct: number;
  gated: number;
  cached: number;
  /** `auth_request` to Node's bare HTTP server (bench/servers/bare-http.ts): the floor of any check in Node. */
  floor: number;
  /** The one worker process's id (its CPU a request is printed beside ours). */
  worker: number;
  stop(): void;
}

/** nginx with three servers on one page: `direct` serves it, `gated` asks the service first, `cached` through the cache. */
async function startNginx(root: string, service: number, bare: number): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-gw-nginx-'));
  // The cache on a tmpfs, as docs/gateway.md recommends (/dev/shm here).
  const cacheDir = mkdtempSync(path.join(CACHE_TMPFS, 'bench-gw-cache-'));
  // nginx's workers (nobody, when started as root) write the cache under it.
  spawnSync('chmod', ['755', dir, cacheDir]);
  const [direct, gated, cached, floor] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const gatedServer = (port: number, extra: string, upstream = 'auditcaptcha') => `server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { auth_request /.auditcaptcha-auth; error_page 401 = @denied; }
    location @denied { return 401; }
    ${authLocation(upstream, extra)}
  }`;
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
  proxy_cache_path ${cacheDir} keys_zone=auditcaptcha_auth:10m max_size=64m inactive=60s;
  types { text/html html; }
  upstream auditcaptcha { server 127.0.0.1:${service}; keepalive 64; }
  upstream bare { server 127.0.0.1:${bare}; keepalive 64; }
  server { listen 127.0.0.1:${direct}; root ${root}; }
  ${gatedServer(gated, '')}
  ${gatedServer(cached, CACHE)}
  ${gatedServer(floor, '', 'bare')}
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null) throw new Error('nginx did not start');
  const worker = Number(
    spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0],
  );
  return {
    worker,
    floor,
    direct,
    gated,
    cached,
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** Checks the service has answered so far: the sum of its gateway_checks_total series (loopback may read /metrics). */
async function checksAnswered(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let sum = 0;
  for (const l of text.split('\n'))
    if (l.startsWith('gateway_checks_total{')) sum += Number(l.slice(l.lastIndexOf(' ') + 1));
  return sum;
}

type Side = 'direct' | 'gated' | 'cached' | 'floor';
const SIDES = ['direct', 'floor', 'gated', 'cached'] as const;
interface Measured {
  rps: number;
  p99: number;
  /** The answering process's CPU per check it answered, and per request through nginx (µs). */
  cpuPerCheck: number;
  /** The part of {@link cpuPerCheck} spent in the kernel (loopback TCP, mostly). */
  kernelPerCheck: number;
  /** Bytes the answering process allocated per check (V8's --trace-gc-nvp). */
  allocatedPerCheck: number;
  cpuPerRequest: number;
  checks: number;
  requests: number;
  /** nginx's worker CPU a request (µs). */
  nginxPerRequest: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
  const profileFlags = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [];
  const service = await startChild<GatewayInfo>(
    'bench/servers/gateway.ts',
    { BENCH_REDIS_URL: process.env.BENCH_REDIS_URL ?? '' },
    profileFlags,
    { traceGc: true },
  );
  const bare = await startChild<{ port: number }>('bench/servers/bare-http.ts', {}, [], { traceGc: true });
  const nginx = await startNginx(root, service.info.port, bare.info.port);
  const window = { fromUs: 0, toUs: 0 };
  try {
    const request = {
      method: 'GET' as const,
      path: '/index.html',
      headers: { 'user-agent': service.info.userAgent, cookie: service.info.cookie, accept: 'text/html' },
    };
    const port: Record<Side, number> = {
      direct: nginx.direct,
      floor: nginx.floor,
      gated: nginx.gated,
      cached: nginx.cached,
    };
    const at = (side: Side, connections: number) => ({
      url: `http://127.0.0.1:${port[side]}`,
      connections,
      requests: [request],
    });
    for (const side of SIDES) await runWrk({ ...at(side, 8), durationSec: 1 });
    const results = new Map<string, Measured[]>();
    window.fromUs = monotonicUs();
    for (const connections of CONNECTIONS) {
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of SIDES) {
          // Ours counts its checks; the bare server answers one per request.
          const counted = side === 'gated' || side === 'cached';
          const checksBefore = counted ? await checksAnswered(service.info.port) : 0;
          const nginxBefore = cpuTimes(nginx.worker);
          const answering = side === 'floor' ? bare : service;
          const r = await runWrkMeasured(
            answering.child.pid!,
            { ...at(side, connections), durationSec: DURATION_SEC },
            answering.gc,
          );
          const nginxAfter = cpuTimes(nginx.worker);
          if (r.non2xx || r.socketErrors)
            throw new Error(
              `${side}: ${r.non2xx} refused, ${r.socketErrors} socket errors: the clearance did not hold`,
            );
          const checks = counted ? (await checksAnswered(service.info.port)) - checksBefore : r.requests;
          // Uncached, every request is one check: fewer means something else answered on the
          // port (an nginx of an earlier run still bound to it), and the round measured nothing.
          if (side === 'gated' && checks < r.requests * 0.99)
            throw new Error(`gated: ${checks} checks for ${r.requests} requests: nginx did not ask the service`);
          const cpuUs = r.cpuUsPerRequest * r.requests;
          const nginxUs = (nginxAfter.user - nginxBefore.user + nginxAfter.system - nginxBefore.system) * 1e6;
          const key = `${connections} ${side}`;
          results.set(key, [
            ...(results.get(key) ?? []),
            {
              rps: r.rps,
              p99: r.p99,
              requests: r.requests,
              nginxPerRequest: nginxUs / r.requests,
              cpuPerCheck: cpuUs / Math.max(1, checks),
              kernelPerCheck: (r.kernelUsPerRequest * r.requests) / Math.max(1, checks),
              allocatedPerCheck: ((r.gc?.allocatedBytes ?? 0) * r.requests) / Math.max(1, checks),
              cpuPerRequest: cpuUs / r.requests,
              checks,
            },
          ]);
        }
      }
    }
    window.toUs = monotonicUs();
    printTable(results);
    console.log(
      `load average after: ${loadAverage()}; ${process.env.BENCH_REDIS_URL ? 'Redis' : 'memory'} stores, ${ROUNDS} rounds of ${DURATION_SEC} s, medians`,
    );
  } finally {
    nginx.stop();
    await service.stop();
    await bare.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const profile = PROFILE_DIR && newestProfile(PROFILE_DIR);
  if (profile) printTopSelfTime(profile, 25, window);
}

/** The issue's table, one block per connection count, and the targets at 8 connections. */
function printTable(results: Map<string, Measured[]>): void {
  const all = (c: number, side: Side, f: (x: Measured) => number) =>
    results
      .get(`${c} ${side}`)!
      .map(f)
      .sort((a, b) => a - b);
  const m = (c: number, side: Side, f: (x: Measured) => number) => median(all(c, side, f));
  const range = (c: number, side: Side, f: (x: Measured) => number, digits: number) => {
    const xs = all(c, side, f);
    return xs.length > 1 ? ` (${fmt(xs[0], digits)}-${fmt(xs.at(-1)!, digits)})` : '';
  };
  const cells = (f: (side: Side) => string) => SIDES.map(f).join(' | ');
  console.log(
    '\n| connections | | nginx alone | `auth_request` to bare node:http | through `auth_request` | with the cache |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const c of CONNECTIONS) {
    const rps = (x: Measured) => x.rps;
    const p99 = (x: Measured) => x.p99;
    const direct = m(c, 'direct', rps);
    const directP99 = m(c, 'direct', p99);
    console.log(
      `| ${c} | requests a second | ${cells((side) =>
        side === 'direct'
          ? `${fmt(direct, 0)}${range(c, side, rps, 0)}`
          : `${fmt(m(c, side, rps), 0)}${range(c, side, rps, 0)}, ${fmt(m(c, side, rps) / direct, 2)} of nginx`,
      )} |`,
    );
    console.log(
      `| ${c} | p99 | ${cells((side) =>
        side === 'direct'
          ? `${fmt(directP99, 2)} ms`
          : `${fmt(m(c, side, p99), 2)} ms (${m(c, side, p99) >= directP99 ? '+' : ''}${fmt(m(c, side, p99) - directP99, 2)})`,
      )} |`,
    );
    console.log(
      `| ${c} | nginx's CPU a request | ${cells(
        (side) =>
          `${fmt(
            m(c, side, (x) => x.nginxPerRequest),
            0,
          )} µs`,
      )} |`,
    );
    const perCheck = (x: Measured) => x.cpuPerCheck;
    console.log(
      `| ${c} | the service's CPU a check | ${cells((side) =>
        side === 'direct'
          ? ''
          : side === 'cached'
            ? `${fmt(
                m(c, side, (x) => x.cpuPerRequest),
                1,
              )} µs a request; ${fmt((100 * m(c, side, (x) => x.checks)) / m(c, side, (x) => x.requests), 3)} % of requests checked`
            : `${fmt(m(c, side, perCheck), 0)} µs${range(c, side, perCheck, 0)}, ${fmt(
                m(c, side, (x) => x.kernelPerCheck),
                0,
              )} in the kernel, ${fmt(m(c, side, (x) => x.allocatedPerCheck) / 1024, 1)} KB allocated`,
      )} |`,
    );
  }
  const c = 8;
  if (!CONNECTIONS.includes(c)) return;
  const direct = m(c, 'direct', (x) => x.rps);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const gatedShare = m(c, 'gated', (x) => x.rps) / direct;
  const added = m(c, 'gated', (x) => x.p99) - m(c, 'direct', (x) => x.p99);
  const cpu = m(c, 'gated', (x) => x.cpuPerCheck);
  const cachedShare = m(c, 'cached', (x) => x.rps) / direct;
  console.log(
    `\ntargets at 8 connections: uncached ${fmt(gatedShare, 2)} of nginx (>= 0.3: ${verdict(gatedShare >= 0.3)}), ` +
      `p99 ${fmt(added, 2)} ms added (<= 2 ms: ${verdict(added <= 2)}), ${fmt(cpu, 0)} µs a check (<= 60: ${verdict(cpu <= 60)}); ` +
      `cached ${fmt(cachedShare, 2)} of nginx (>= 0.8: ${verdict(cachedShare >= 0.8)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
