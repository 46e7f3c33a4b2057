/**
 * Real proxies for the gateway suites: Debian's nginx and Caddy, each started on a loopback
 * port with a config file in a temporary folder, in front of a static fixture site, asking the
 * test's service at its forward-auth endpoint. Off CI the suites skip without the binaries.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports.ts';

export const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
export const CADDY = process.env.CADDY_PATH || '/usr/bin/caddy';

function runs(bin: string, arg: string): boolean {
  return spawnSync(bin, [arg], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}
export const hasNginx = runs(NGINX, '-v');
export const hasCaddy = runs(CADDY, 'version');

/** A response as the wire gave it: no redirect followed, no header added by a client library. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET (or `method`) with exactly these headers, on a 10 s deadline. */
export function rawGet(url: string, headers: Record<string, string>, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** A person's Chromium, as the User-Agent of forward-auth calls that name none. */
export const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/** The original request a forward-auth call describes; each field has a plain browser's default. */
export interface OriginalRequest {
  uri?: string;
  method?: string;
  proto?: 'http' | 'https';
  ip?: string;
  ua?: string;
  accept?: string;
  mode?: string;
  cookie?: string;
}

/** A forward-auth call to `base` as Caddy makes it, from loopback (a trusted proxy), for a request to `host`. */
export function forwardAuth(base: string, host: string, orig: OriginalRequest): Promise<RawResponse> {
  const headers: Record<string, string> = {
    'X-Forwarded-Host': host,
    'X-Forwarded-Uri': orig.uri ?? '/',
    'X-Forwarded-Method': orig.method ?? 'GET',
    'X-Forwarded-Proto': orig.proto ?? 'http',
    'X-Forwarded-For': orig.ip ?? '198.51.100.7',
    'User-Agent': orig.ua ?? BROWSER_UA,
  };
  if (orig.accept) headers.Accept = orig.accept;
  if (orig.mode) headers['Sec-Fetch-Mode'] = orig.mode;
  if (orig.cookie) headers.Cookie = orig.cookie;
  return rawGet(`${base}/api/v1/gateway/auth/caddy`, headers);
}

/** The fixture site's files: pages, a stylesheet, a script, an image and a feed. */
export function writeFixtureSite(dir: string): void {
  // nginx's workers run as an unprivileged user when the suite runs as root (CI): let them read.
  chmodSync(dir, 0o755);
  mkdirSync(path.join(dir, 'blog'), { recursive: true, mode: 0o755 });
  const page = (n: number) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${n}</title><link rel="stylesheet" href="/style.css"><script src="/app.js" defer></script></head>` +
    `<body><h1>Fixture page ${n}</h1><img src="/dot.svg" alt=""><p><a id="next" href="/page${n + 1}.html">next</a></p></body></html>`;
  writeFileSync(path.join(dir, 'index.html'), page(0));
  for (let n = 1; n <= 60; n++) writeFileSync(path.join(dir, `page${n}.html`), page(n));
  writeFileSync(path.join(dir, 'style.css'), 'body{font-family:sans-serif}');
  writeFileSync(path.join(dir, 'app.js'), 'document.documentElement.dataset.ready = "1";');
  writeFileSync(path.join(dir, 'dot.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
  writeFileSync(
    path.join(dir, 'blog', 'feed.xml'),
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Fixture</title></channel></rss>',
  );
}

export interface RunningProxy {
  /** `http://<host>:<port>` as a browser reaches it. */
  origin: string;
  port: number;
  /** The request header through which a test stands for a client at another address. */
  clientHeader: string;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, name: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${output()}`);
    try {
      await rawGet(`http://127.0.0.1:${port}/`, { Host: 'probe.invalid' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${name} did not listen on ${port} within 15 s: ${output()}`);
}

function startChild(bin: string, args: string[], name: string, port: number): Promise<ChildProcess> {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  return waitForPort(port, child, name, () => out).then(() => child);
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * nginx as docs/gateway.md configures it: `auth_request` to our endpoint, `error_page 401`
 * to the challenge page, `/.auditcaptcha/` proxied to us.
 */
export async function startNginx(opts: {
  host: string;
  root: string;
  service: string;
  clientIpHeader?: string;
  /** A file nginx logs each request to, as `<status> <$uri>` (the path it served). */
  accessLog?: string;
  /** With docs/gateway.md's `proxy_cache` of pass answers on the auth subrequest. */
  cache?: boolean;
}): Promise<RunningProxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-nginx-'));
  // nginx's workers (an unprivileged user when the suite runs as root) keep the cache under it.
  if (opts.cache) chmodSync(dir, 0o755);
  const port = await freePort();
  const upstream = new URL(opts.service).host;
  const client = opts.clientIpHeader
    ? `$http_${opts.clientIpHeader.toLowerCase().replaceAll('-', '_')}`
    : '$remote_addr';
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 256; }
http {
  ${opts.accessLog ? `log_format served '$status $uri';\n  access_log ${opts.accessLog} served;` : 'access_log off;'}
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { text/html html; text/css css; application/javascript js; image/svg+xml svg; application/rss+xml xml; }
  set_real_ip_from 127.0.0.0/8;
  real_ip_header X-Test-Client;
  ${opts.cache ? `proxy_cache_path ${dir}/auth-cache keys_zone=auditcaptcha_auth:10m max_size=64m inactive=60s;` : ''}
  upstream auditcaptcha { server ${upstream}; keepalive 16; }
  server {
    listen 127.0.0.1:${port};
    server_name ${opts.host};
    root ${opts.root};

    location / {
      auth_request /.auditcaptcha-auth;
      error_page 401 = @auditcaptcha_challenge;
    }
    location = /.auditcaptcha-auth {
      internal;
      proxy_pass http://auditcaptcha/api/v1/gateway/auth/nginx;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-Host ${opts.host};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For ${client};
      ${
        opts.cache
          ? `proxy_cache auditcaptcha_auth;
      proxy_cache_key "${opts.host} $request_method $request_uri ${client} $http_user_agent $cookie___auditcaptcha_clearance";
      open_file_cache max=1000 inactive=10s;`
          : ''
      }
    }
    location @auditcaptcha_challenge {
      rewrite ^ /.auditcaptcha/challenge? break;
      proxy_pass http://auditcaptcha;
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-Host ${opts.host};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For ${client};
    }
    location /.auditcaptcha/ {
      proxy_pass http://auditcaptcha;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host ${opts.host};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For ${client};
    }
  }
}
`;
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child = await startChild(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], 'nginx', port);
  return {
    origin: `http://${opts.host}:${port}`,
    port,
    clientHeader: 'X-Test-Client',
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Caddy as docs/gateway.md configures it: `forward_auth` to our endpoint, `/.auditcaptcha/*` proxied to us. */
export async function startCaddy(opts: { host: string; root: string; service: string }): Promise<RunningProxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-caddy-'));
  const port = await freePort();
  const upstream = new URL(opts.service).host;
  const conf = `{
  admin off
  auto_https off
  storage file_system ${dir}/data
}
http://${opts.host}:${port} {
  bind 127.0.0.1
  handle /.auditcaptcha/* {
    reverse_proxy ${upstream} {
      header_up X-Forwarded-Host {host}
      trusted_proxies 127.0.0.0/8
    }
  }
  handle {
    forward_auth ${upstream} {
      uri /api/v1/gateway/auth/caddy
      header_up X-Forwarded-Host {host}
      trusted_proxies 127.0.0.0/8
    }
    root * ${opts.root}
    file_server
  }
}
`;
  writeFileSync(path.join(dir, 'Caddyfile'), conf);
  const child = await startChild(
    CADDY,
    ['run', '--config', path.join(dir, 'Caddyfile'), '--adapter', 'caddyfile'],
    'caddy',
    port,
  );
  return {
    origin: `http://${opts.host}:${port}`,
    port,
    // Caddy keeps a trusted peer's X-Forwarded-For and appends the peer: the service walks past loopback.
    clientHeader: 'X-Forwarded-For',
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
