/**
 * Private Access Tokens through the real HTTP stack. The test is its own issuer (an RSA-PSS
 * 2048 key made with WebCrypto, configured in PAT_ISSUERS) and its own attested client: it
 * fetches the route's 401, runs RFC 9578's issuance with @cloudflare/privacypass-ts on the
 * challenge of the WWW-Authenticate header, and sends the token back. A real token marks the
 * challenge once; a forged, tampered, carried or replayed one marks nothing; junk in the
 * header is a 4xx in the documented shape, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { AuthorizationHeader, publicVerif, WWWAuthenticateHeader } from '@cloudflare/privacypass-ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import {
  browser,
  createTestSite,
  envAnswerFor,
  PERSON_TELEMETRY,
  siteverify,
  solveProofAsync,
} from '../helpers/captcha.ts';
import { isAttested } from '../../src/captcha/private-token.ts';

const ORIGIN = 'https://shop.example';
const ISSUER = 'issuer.example';
const { BlindRSAMode, Client, Issuer, TokenResponse, getPublicKeyBytes } = publicVerif;

let services: TestServices;
let server: TestServer;
let sitekey: string;
/** The trusted issuer's key pair, and a forger's of the same kind. */
let issuerKeys: CryptoKeyPair;
let forgerKeys: CryptoKeyPair;

const generate = () =>
  crypto.subtle.generateKey(
    { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-384' },
    true,
    ['sign', 'verify'],
  );

beforeAll(async () => {
  [issuerKeys, forgerKeys] = await Promise.all([generate(), generate()]);
  const tokenKey = Buffer.from(await getPublicKeyBytes(issuerKeys.publicKey)).toString('base64url');
  services = await openTestServices({
    env: { PAT_ISSUERS: `${ISSUER}=${tokenKey}`, CAPTCHA_ENGINE: 'never', PUBLIC_URL: 'https://captcha.example' },
  });
  server = await startTestServer(services);
  ({ sitekey } = await createTestSite(services, [ORIGIN]));
}, 60_000);
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const newChallenge = () => randomBytes(16).toString('base64url');
const route = (challenge: string, key = sitekey) =>
  `${server.url}/api/v2/challenges/${challenge}/private-token?sitekey=${encodeURIComponent(key)}`;
const get = (challenge: string, authorization?: string) =>
  request(route(challenge), {
    headers: { ...browser(ORIGIN), ...(authorization === undefined ? {} : { Authorization: authorization }) },
  });

/**
 * What an attested device does with the 401: a token request for the header's first
 * challenge, signed (blindly) by `signer`, finalized into an Authorization value. `keyOf`
 * is the key the client believes in (the header's token-key unless said).
 */
async function attestedClient(wwwAuthenticate: string, signer = issuerKeys, keyOf?: Uint8Array): Promise<string> {
  const [challenge] = WWWAuthenticateHeader.parse(wwwAuthenticate);
  const client = new Client(BlindRSAMode.PSS);
  const tokenRequest = await client.createTokenRequest(challenge.challenge, keyOf ?? challenge.tokenKey);
  const issuer = new Issuer(BlindRSAMode.PSS, ISSUER, signer.privateKey, signer.publicKey);
  const response = await issuer.issue(tokenRequest);
  const token = await client.finalize(TokenResponse.deserialize(response.serialize()));
  return new AuthorizationHeader(token).toString(true);
}

/** Fetches the 401 for `challenge` and returns its WWW-Authenticate value. */
async function challengeHeader(challenge: string): Promise<string> {
  const res = await get(challenge);
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', status: 401, reason: 'missing' });
  const header = res.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^PrivateToken challenge="[A-Za-z0-9_-]+=*", token-key="[A-Za-z0-9_-]+=*"$/);
  return header;
}

/** The token bytes of an Authorization value, changed by `edit`, as an Authorization value again. */
function tampered(authorization: string, edit: (bytes: Buffer) => Buffer): string {
  const encoded = /token="([^"]+)"/.exec(authorization)![1];
  return `PrivateToken token="${edit(Buffer.from(encoded, 'base64url')).toString('base64url')}"`;
}

describe('Private Access Tokens (PAT_ISSUERS set)', () => {
  it('answers without a token with 401, the challenge of our issuer, and nothing marked', async () => {
    const id = newChallenge();
    const header = await challengeHeader(id);
    const [parsed] = WWWAuthenticateHeader.parse(header);
    expect(parsed.challenge.tokenType).toBe(2);
    expect(parsed.challenge.issuerName).toBe(ISSUER);
    expect(parsed.challenge.redemptionContext).toHaveLength(32);
    expect(parsed.challenge.originInfo).toEqual(['captcha.example']);
    expect(Buffer.from(parsed.tokenKey)).toEqual(Buffer.from(await getPublicKeyBytes(issuerKeys.publicKey)));
    // The same id gets the same challenge (the token is checked against it), another id another.
    expect(await challengeHeader(id)).toBe(header);
    expect(await challengeHeader(newChallenge())).not.toBe(header);
    expect(await isAttested(services.stores, id, sitekey)).toBe(false);
  });

  it('marks the challenge for a token of the configured issuer', async () => {
    const id = newChallenge();
    const authorization = await attestedClient(await challengeHeader(id));
    const res = await get(id, authorization);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ attested: true });
    expect(await isAttested(services.stores, id, sitekey)).toBe(true);
    // The mark is this site's: the same challenge id on another site is not attested.
    expect(await isAttested(services.stores, id, 'sk_another_site')).toBe(false);
  });

  it('refuses a token of a forged issuer (its own key) and marks nothing', async () => {
    const id = newChallenge();
    const forgedKey = await getPublicKeyBytes(forgerKeys.publicKey);
    const authorization = await attestedClient(await challengeHeader(id), forgerKeys, forgedKey);
    const res = await get(id, authorization);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', reason: 'unknown-key' });
    expect(res.headers.get('www-authenticate')).toMatch(/^PrivateToken /);
    expect(await isAttested(services.stores, id, sitekey)).toBe(false);
  });

  it('refuses a token naming our key whose signature is not its (tampered)', async () => {
    const id = newChallenge();
    const good = await attestedClient(await challengeHeader(id));
    const forged = tampered(good, (b) => {
      b[b.length - 1] ^= 1;
      return b;
    });
    const res = await get(id, forged);
    expect(res.body).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', reason: 'bad-signature' });
    expect(await isAttested(services.stores, id, sitekey)).toBe(false);
    // The refused forgery spent nothing: the genuine token still counts.
    expect((await get(id, good)).status).toBe(200);
  });

  it('refuses a token for challenge A sent to challenge B', async () => {
    const [a, b] = [newChallenge(), newChallenge()];
    const forA = await attestedClient(await challengeHeader(a));
    const res = await get(b, forA);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', reason: 'wrong-challenge' });
    expect(await isAttested(services.stores, b, sitekey)).toBe(false);
    expect(await isAttested(services.stores, a, sitekey)).toBe(false);
  });

  it('redeems a token once: replayed, it is refused', async () => {
    const id = newChallenge();
    const authorization = await attestedClient(await challengeHeader(id));
    const [first, second] = [await get(id, authorization), await get(id, authorization)];
    expect(first.status).toBe(200);
    expect(second.status).toBe(401);
    expect(second.body).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', reason: 'replayed' });
  });

  it('answers malformed and oversized Authorization headers with a 4xx in the documented shape', async () => {
    const id = newChallenge();
    const good = await attestedClient(await challengeHeader(id));
    const cases: Array<[string, string]> = [
      ['Bearer abc', 'malformed'],
      ['PrivateToken', 'malformed'],
      ['PrivateToken token=', 'malformed'],
      ['PrivateToken token="!!!"', 'malformed'],
      ['PrivateToken token="AAAA", token="AAAA"', 'malformed'],
      [`PrivateToken token="${'A'.repeat(4000)}"`, 'malformed'],
      [tampered(good, (b) => b.subarray(0, b.length - 1)), 'malformed'],
      [tampered(good, (b) => Buffer.concat([b, Buffer.alloc(1)])), 'malformed'],
      [tampered(good, (b) => (b.writeUInt16BE(1, 0), b)), 'token-type'],
      [tampered(good, (b) => (b.writeUInt16BE(0xda7a, 0), b)), 'token-type'],
    ];
    for (const [authorization, reason] of cases) {
      const res = await get(id, authorization);
      expect(res.status, authorization.slice(0, 40)).toBe(401);
      expect(res.body, authorization.slice(0, 40)).toMatchObject({ code: 'ERR_PRIVATE_TOKEN', status: 401, reason });
    }
    // Beyond Node's header limit: 431, still the documented shape.
    const huge = await get(id, `PrivateToken token="${'A'.repeat(40_000)}"`);
    expect(huge.status).toBe(431);
    expect(huge.body).toMatchObject({ code: 'ERR_HEADERS_TOO_LARGE', status: 431 });
    expect(await isAttested(services.stores, id, sitekey)).toBe(false);
    // None of that spent the genuine token.
    expect((await get(id, good)).status).toBe(200);
  });

  it('keeps the origin rule: an unregistered origin is refused before any token is read', async () => {
    const id = newChallenge();
    const res = await request(route(id), { headers: browser('https://elsewhere.example') });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'ERR_ORIGIN_NOT_ALLOWED' });
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('Private Access Tokens (PAT_ISSUERS unset)', () => {
  let off: TestServices;
  let offServer: TestServer;
  beforeAll(async () => {
    off = await openTestServices({ env: { CAPTCHA_ENGINE: 'never' } });
    offServer = await startTestServer(off);
  }, 60_000);
  afterAll(async () => {
    await offServer?.close();
    await off?.cleanup();
  });

  it('is a 404: no token is ever asked for', async () => {
    const res = await request(`${offServer.url}/api/v2/challenges/${newChallenge()}/private-token?sitekey=${sitekey}`, {
      headers: browser(ORIGIN),
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'ERR_NOT_FOUND', status: 404 });
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('a Private Access Token lifts its challenge’s score', () => {
  let scored: TestServices;
  let scoredServer: TestServer;
  let site: { sitekey: string; secret: string };

  beforeAll(async () => {
    const tokenKey = Buffer.from(await getPublicKeyBytes(issuerKeys.publicKey)).toString('base64url');
    scored = await openTestServices({
      env: { PAT_ISSUERS: `${ISSUER}=${tokenKey}`, TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' },
    });
    scoredServer = await startTestServer(scored);
    site = await createTestSite(scored, [ORIGIN]);
  }, 60_000);
  afterAll(async () => {
    await scoredServer?.close();
    await scored?.cleanup();
  });

  /** A v3 token as the widget earns one, the challenge offered a PAT signed by `signer` first. */
  async function v3With(signer: CryptoKeyPair, from: string, keyOf?: Uint8Array): Promise<Record<string, unknown>> {
    const headers = browser(ORIGIN, from);
    const fields = { sitekey: site.sitekey, action: 'login', telemetry: PERSON_TELEMETRY };
    const first = await request(`${scoredServer.url}/api/v3/challenges`, { method: 'POST', headers, json: fields });
    const work = first.body.challenge as {
      id: string;
      ticket: string;
      count: number;
      bits: number;
      private_token: boolean;
    };
    expect(work.private_token).toBe(true);
    const url = `${scoredServer.url}/api/v2/challenges/${work.id}/private-token?sitekey=${encodeURIComponent(site.sitekey)}`;
    const asked = await request(url, { headers });
    expect(asked.status).toBe(401);
    const answer = await attestedClient(asked.headers.get('www-authenticate') ?? '', signer, keyOf);
    await request(url, { headers: { ...headers, Authorization: answer } });
    const done = await request(`${scoredServer.url}/api/v3/challenges`, {
      method: 'POST',
      headers,
      json: { ...fields, ...(await solveProofAsync(work)), env: envAnswerFor(scored, work) },
    });
    expect(done.status).toBe(201);
    return (await siteverify(scoredServer.url, { secret: site.secret, response: done.body.token })).body;
  }

  it('from the configured issuer: 1.0, `attested`; from a forger: as without one', { timeout: 120_000 }, async () => {
    const attested = await v3With(issuerKeys, '198.51.100.7');
    expect(attested).toMatchObject({ success: true, score: 1 });
    expect(attested.reasons).toContain('attested');
    const forged = await v3With(forgerKeys, '203.0.113.7', await getPublicKeyBytes(forgerKeys.publicKey));
    expect(forged).toMatchObject({ success: true, score: 0.9 });
    expect(forged.reasons).not.toContain('attested');
  });
});
