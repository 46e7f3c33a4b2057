import { startChild } from './lib/child.ts';
import { runWrk } from './lib/wrk.ts';
import { sealToken, newTokenId } from '../src/captcha/tokens.ts';
const svc = await startChild<{ port: number; sitekey: string; secret: string; tokenKey: string }>('bench/servers/alloc-wrap.ts', { BENCH_REDIS_URL: process.env.R ?? '' }, []);
const key = Buffer.from(svc.info.tokenKey, 'hex');
const reqs = Array.from({ length: 40000 }, (_, i) => ({ method: 'POST' as const, path: '/api/v1/siteverify',
  headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
  body: JSON.stringify({ secret: svc.info.secret, response: sealToken({ id: newTokenId(), site: svc.info.sitekey, hostname: 'b.example', iat: Date.now(), kind: 'v3', action: 'a', score: 0.9, cdata: null }, key) }) }));
const url = `http://127.0.0.1:${svc.info.port}`;
await runWrk({ url, connections: 64, durationSec: 2, requests: reqs.slice(0, 20000) });
process.kill(svc.child.pid!, 'SIGUSR1');
await new Promise((r) => setTimeout(r, 200));
const r = await runWrk({ url, connections: 64, durationSec: 3, requests: reqs.slice(20000) });
process.kill(svc.child.pid!, 'SIGUSR2');
await new Promise((r) => setTimeout(r, 1500));
console.log('requests', r.requests);
await svc.stop();
