// The self-hosted alternatives' verification behind the same Koa app and body parser as the
// bare baseline (bench/servers/bare-koa.ts), for bench/peers/run.ts:
//   POST /altcha/verify   {payload}   altcha-lib's verifySolution (its v1 protocol: SHA-256
//                                      proof of work, HMAC-signed challenge), then a spent-token
//                                      set so a payload verifies once (ALTCHA's guidance)
//   POST /cap/siteverify  {response}  @cap.js/server's validateToken (the token consumed)
//   POST /cap/redeem      {token, solutions}
//                                     Cap's whole server side of a success: redeemChallenge (the
//                                     solutions checked, a token issued), then validateToken
//   POST /prepare/altcha  {n}         n solved ALTCHA payloads (not measured)
//   POST /prepare/cap     {n}         n Cap tokens, each a challenge created, solved and redeemed
//   POST /prepare/cap-solved {n}      n Cap challenges created and solved, not redeemed: Cap's
//                                     default 50 challenges of 32 bytes each (what its server
//                                     checks at redeem), at difficulty 1 (only the client's
//                                     work depends on it) so that preparing them stays quick
// PEERS_REDIS_URL set: the spent set and Cap's challenge and token storage live in Redis, as
// ours do on Redis.
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
          challenges: {
            store: async (key: string, data: Cap.ChallengeData) => {
              await redis.set(`${prefix}cap:c:${key}`, JSON.stringify(data), { PXAT: data.expires });
            },
            read: async (key: string) => {
              const v = await redis.get(`${prefix}cap:c:${key}`);
              return v === null ? null : (JSON.parse(v) as Cap.ChallengeData);
            },
            delete: async (key: string) => {
              await redis.del(`${prefix}cap:c:${key}`);
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

/** A Cap challenge created with `config` and solved here, not redeemed. */
async function capSolved(config: {
  challengeCount: number;
  challengeSize: number;
  challengeDifficulty: number;
}): Promise<{ token: string; solutions: number[] }> {
  const { challenge, token } = await cap.createChallenge(config);
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
  return { token: token!, solutions };
}

/** Cap's default challenge size and count (what its server checks at redeem), at difficulty 1. */
const CAP_DEFAULTS = { challengeCount: 50, challengeSize: 32, challengeDifficulty: 1 };

async function capToken(): Promise<string> {
  const solved = await capSolved({ challengeCount: 1, challengeSize: 32, challengeDifficulty: 1 });
  const redeemed = await cap.redeemChallenge(solved);
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
  } else if (ctx.path === '/cap/redeem') {
    const token = typeof body.token === 'string' ? body.token : '';
    const solutions = Array.isArray(body.solutions) ? (body.solutions as number[]) : [];
    const redeemed = await cap.redeemChallenge({ token, solutions });
    ctx.body = redeemed.success && redeemed.token ? await cap.validateToken(redeemed.token) : { success: false };
  } else if (ctx.path === '/prepare/altcha' || ctx.path === '/prepare/cap' || ctx.path === '/prepare/cap-solved') {
    const n = Math.min(Number(body.n) || 0, 500_000);
    const make =
      ctx.path === '/prepare/cap'
        ? capToken
        : ctx.path === '/prepare/cap-solved'
          ? async () => JSON.stringify(await capSolved(CAP_DEFAULTS))
          : altchaPayload;
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
