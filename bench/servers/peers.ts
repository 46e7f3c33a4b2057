// The self-hosted alternatives' verification behind the same Koa app and body parser as the
// bare baseline (bench/servers/bare-koa.ts), for bench/peers/run.ts:
//   POST /altcha/verify   {payload}   altcha-lib's verifySolution (its v1 protocol: SHA-256
//                                      proof of work, HMAC-signed challenge), then a spent-token
//                                      set so a payload verifies once (ALTCHA's guidance)
//   POST /cap/siteverify  {response}  @cap.js/server's validateToken (the token consumed)
//   POST /prepare/altcha  {n}         n solved ALTCHA payloads (not measured)
//   POST /prepare/cap     {n}         n Cap tokens, each a challenge created, solved and redeemed
// PEERS_REDIS_URL set: the spent set and Cap's token storage live in Redis, as ours do on Redis.
import { createHash } from 'node:crypto';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createClient } from 'redis';
import { createChallenge, solveChallenge, verifySolution } from 'altcha-lib/v1';
import Cap from '@cap.js/server';

const HMAC_KEY = 'bench-altcha-hmac-key';
const TOKEN_TTL_MS = 300_000;
const redisUrl = process.env.PEERS_REDIS_URL;
const redis = redisUrl ? await createClient({ url: redisUrl }).connect() : undefined;
const prefix = `peers:${process.pid}:`;

/** Marks `id` spent; true when it was not spent before (SET NX, or a Map with expiry). */
const spentMemory = new Map<string, number>();
async function spendOnce(id: string): Promise<boolean> {
  if (redis) return (await redis.set(`${prefix}altcha:${id}`, '1', { PX: TOKEN_TTL_MS, NX: true })) === 'OK';
  const now = Date.now();
  const until = spentMemory.get(id);
  if (until !== undefined && until > now) return false;
  spentMemory.set(id, now + TOKEN_TTL_MS);
  return true;
}

// Cap's own storage hooks: its in-memory state, or Redis keys with their expiry.
const cap = new Cap({
  noFSState: true,
  disableAutoCleanup: true,
  ...(redis
    ? {
        storage: {
          tokens: {
            store: async (key: string, expires: number) => {
              await redis.set(`${prefix}cap:t:${key}`, String(expires), { PXAT: expires });
            },
            get: async (key: string) => {
              const v = await redis.get(`${prefix}cap:t:${key}`);
              return v === null ? null : Number(v);
            },
            delete: async (key: string) => {
              await redis.del(`${prefix}cap:t:${key}`);
            },
            deleteExpired: async () => {},
          },
        },
      }
    : {}),
});

/** Cap's challenge seeds, as @cap.js/server derives them (its prng), to solve a challenge here. */
function capSeed(seed: string, length: number): string {
  let hash = 2166136261;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash += (hash << 1) + (hash << 4) + (hash << 7) + (hash << 8) + (hash << 24);
  }
  let state = hash >>> 0;
  let out = '';
  while (out.length < length) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out += (state >>> 0).toString(16).padStart(8, '0');
  }
  return out.substring(0, length);
}

async function capToken(): Promise<string> {
  const { challenge, token } = await cap.createChallenge({
    challengeCount: 1,
    challengeSize: 32,
    challengeDifficulty: 1,
  });
  const solutions: number[] = [];
  for (let i = 1; i <= challenge.c; i++) {
    const salt = capSeed(`${token}${i}`, challenge.s);
    const target = capSeed(`${token}${i}d`, challenge.d);
    let n = 0;
    while (
      !createHash('sha256')
        .update(salt + n)
        .digest('hex')
        .startsWith(target)
    )
      n++;
    solutions.push(n);
  }
  const redeemed = await cap.redeemChallenge({ token: token!, solutions });
  if (!redeemed.success || !redeemed.token) throw new Error(`cap redeem failed: ${redeemed.message}`);
  return redeemed.token;
}

async function altchaPayload(): Promise<string> {
  const challenge = await createChallenge({
    hmacKey: HMAC_KEY,
    maxNumber: 50,
    expires: new Date(Date.now() + TOKEN_TTL_MS),
  });
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, 50).promise;
  if (!solution) throw new Error('altcha challenge not solved');
  const payload = { ...challenge, number: solution.number };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

const app = new Koa();
app.use(koaBody({ json: true, urlencoded: true }));
app.use(async (ctx) => {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  if (ctx.path === '/altcha/verify') {
    const payload = typeof body.payload === 'string' ? body.payload : '';
    const ok = payload !== '' && (await verifySolution(payload, HMAC_KEY, true));
    // The signature names the challenge: a payload verifies once.
    const signature = ok
      ? (JSON.parse(Buffer.from(payload, 'base64').toString()) as { signature: string }).signature
      : '';
    ctx.body = { success: ok && (await spendOnce(signature)) };
  } else if (ctx.path === '/cap/siteverify') {
    const response = typeof body.response === 'string' ? body.response : '';
    ctx.body = await cap.validateToken(response);
  } else if (ctx.path === '/prepare/altcha' || ctx.path === '/prepare/cap') {
    const n = Math.min(Number(body.n) || 0, 500_000);
    const make = ctx.path === '/prepare/cap' ? capToken : altchaPayload;
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) tokens.push(await make());
    ctx.body = tokens;
  } else {
    ctx.status = 404;
  }
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () =>
  server.close(() => {
    void redis?.quit().finally(() => process.exit(0));
    if (!redis) process.exit(0);
  }),
);
