import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '../../src/captcha/sites.ts';
import { ConsoleSessionSchema } from '../../src/entities/console-session.entity.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

let services: TestServices;
let server: TestServer;
beforeAll(async () => {
  services = await openTestServices({ env: { CONSOLE_SIGN_IN_ATTEMPTS: '6', TRUST_PROXY: 'true' } });
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

interface Signed {
  cookie: string;
  csrf: string;
  setCookie: string;
  /** The address it signed in from; its /trpc calls come from there too. */
  ip: string;
}

/** Signs in as a browser would from the console page (its own origin); a distinct address per call. */
async function signIn(apiKey: string, ip = '10.0.0.1'): Promise<Signed> {
  const res = await fetch(`${server.url}/console/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: server.url, 'X-Forwarded-For': ip },
    body: JSON.stringify({ api_key: apiKey }),
  });
  expect(res.status).toBe(201);
  const setCookie = res.headers.get('set-cookie')!;
  const body = (await res.json()) as { data: { csrf_token: string } };
  return { cookie: setCookie.split(';')[0], csrf: body.data.csrf_token, setCookie, ip };
}

/**
 * A /trpc call with the console's cookie (and, unless told, its CSRF token), from the address
 * it signed in from; `confirmKey` is the API key typed again (X-Confirm-Key).
 */
async function trpc(
  s: Signed,
  path: string,
  input?: unknown,
  opts: { csrf?: string | null; origin?: string; confirmKey?: string } = {},
) {
  const mutation = opts.csrf !== undefined || input !== undefined;
  const headers: Record<string, string> = { Cookie: s.cookie, 'X-Forwarded-For': s.ip };
  if (opts.origin) headers.Origin = opts.origin;
  if (opts.confirmKey) headers['X-Confirm-Key'] = opts.confirmKey;
  let res: Response;
  if (mutation && !path.endsWith('.list') && !path.endsWith('.get')) {
    const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
    if (csrf !== null) headers['X-CSRF-Token'] = csrf;
    res = await fetch(`${server.url}/trpc/${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  } else {
    const q = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    res = await fetch(`${server.url}/trpc/${path}${q}`, { headers });
  }
  return { status: res.status, body: await res.json() };
}

describe('the console', () => {
  it('serves its page under a strict CSP, with every asset its own', async () => {
    const res = await fetch(`${server.url}/console`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\bstyle=/);
    for (const src of html.match(/(?:src|href)="[^"]+"/g)!) expect(src).toMatch(/^(src|href)="\/console\/assets\//);
    const js = await fetch(`${server.url}/console/assets/console.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    // A deep link gets the same page; the assets path does not.
    expect((await fetch(`${server.url}/console/sites/x`)).status).toBe(200);
    expect((await fetch(`${server.url}/console/assets/nope.js`)).status).toBe(404);
  });

  it('signs in with an API key into an HttpOnly, SameSite=Strict cookie with an expiry; the key stays unstored', async () => {
    const { key } = await createKeyedUser(services, 'console-a');
    const s = await signIn(key, '10.0.1.1');
    expect(s.setCookie).toMatch(/^ac_console=cs_[0-9a-f]{10}_[\w-]{43}; Path=\/; Expires=/);
    expect(s.setCookie).toContain('HttpOnly');
    expect(s.setCookie).toContain('SameSite=Strict');
    expect(s.setCookie).toMatch(/Max-Age=43\d\d\d/);
    expect(s.setCookie).not.toContain('Secure'); // PUBLIC_URL is not https here
    const rows = await services.orm.em.fork().find(ConsoleSessionSchema, {});
    const secret = s.cookie.split('=')[1];
    expect(rows.some((r) => r.hash === secret || r.prefix === secret)).toBe(false);
    const me = await fetch(`${server.url}/console/api/session`, { headers: { Cookie: s.cookie } });
    expect(me.status).toBe(200);
    expect((await me.json()).data.csrf_token).toBe(s.csrf);
  });

  it('answers a wrong key and a missing session with their codes, never a stack', async () => {
    const bad = await fetch(`${server.url}/console/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.0.2.1' },
      body: JSON.stringify({ api_key: 'ak_0000000000_' + 'a'.repeat(43) }),
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ code: 'ERR_API_KEY_INVALID' });
    const none = await fetch(`${server.url}/console/api/session`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'ERR_SESSION_INVALID' });
    const forged = await fetch(`${server.url}/trpc/sites.list`, {
      headers: { Cookie: `ac_console=cs_0123456789_${'b'.repeat(43)}` },
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ code: 'ERR_SESSION_INVALID' });
  });

  it('calls the procedures with the session; every change needs the CSRF token from our origin', async () => {
    const { key } = await createKeyedUser(services, 'console-csrf');
    const s = await signIn(key, '10.0.3.1');
    const site = { name: 'Shop', origins: ['https://shop.example'] };
    const confirmKey = key;
    expect((await trpc(s, 'sites.create', site, { csrf: null, confirmKey })).body).toMatchObject({ code: 'ERR_CSRF' });
    expect((await trpc(s, 'sites.create', site, { csrf: 'wrong', confirmKey })).status).toBe(403);
    const foreign = await trpc(s, 'sites.create', site, { origin: 'https://evil.example', confirmKey });
    expect(foreign.body).toMatchObject({ code: 'ERR_CSRF' });
    const made = await trpc(s, 'sites.create', site, { confirmKey });
    expect(made.status).toBe(200);
    expect(made.body.result.data.data.secret).toMatch(/^sec_/);
    const list = await trpc(s, 'sites.list');
    expect(list.body.result.data.data.map((x: any) => x.name)).toEqual(['Shop']);
    // Sign out needs the token too, then the cookie is dead.
    const out = await fetch(`${server.url}/console/api/session`, {
      method: 'DELETE',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await trpc(s, 'sites.list')).status).toBe(401);
  });

  it('never shows one user what is another’s: sites, keys, reports, analytics', async () => {
    const a = await createKeyedUser(services, 'tenant-a');
    const b = await createKeyedUser(services, 'tenant-b');
    const em = services.orm.em.fork();
    const siteA = await createSite(em, a.user.id, { name: 'A', origins: ['https://a.example'] });
    const sb = await signIn(b.key, '10.0.4.1');
    expect((await trpc(sb, 'sites.list')).body.result.data.data).toEqual([]);
    const keys = (await trpc(sb, 'keys.list')).body.result.data.data;
    expect(keys.map((k: any) => k.id)).toEqual([b.apiKey.id]);
    expect((await trpc(sb, 'analytics.get', { range: 'day', sitekey: siteA.site.sitekey })).status).toBe(404);
    expect((await trpc(sb, 'keys.revoke', { id: a.apiKey.id }, { confirmKey: b.key })).status).toBe(404);
    expect((await trpc(sb, 'sites.delete', { sitekey: siteA.site.sitekey }, { confirmKey: b.key })).status).toBe(404);
    expect((await trpc(sb, 'reports.list', { per_page: '10' })).body.result.data.data).toEqual([]);
  });

  it('ends the sessions of a revoked key at once', async () => {
    const { user, key, apiKey } = await createKeyedUser(services, 'console-revoke');
    const s = await signIn(key, '10.0.5.1');
    const other = await trpc(s, 'keys.create', { name: 'second' }, { confirmKey: key });
    expect(other.status).toBe(200);
    const secondKey = other.body.result.data.data.key as string;
    const second = await signIn(secondKey, '10.0.5.2');
    expect((await trpc(second, 'keys.revoke', { id: apiKey.id }, { confirmKey: secondKey })).status).toBe(200);
    const after = await trpc(s, 'sites.list');
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'ERR_SESSION_INVALID', message: expect.stringContaining('revoked') });
    expect((await trpc(second, 'keys.list')).body.result.data.data).toHaveLength(2);
    expect(user.id).toBeGreaterThan(0);
  });

  it('ends an expired session with a clear message', async () => {
    const { key } = await createKeyedUser(services, 'console-expiry');
    const s = await signIn(key, '10.0.6.1');
    await services.orm.em.fork().nativeUpdate(ConsoleSessionSchema, {}, { expiresAt: new Date(Date.now() - 1000) });
    const res = await fetch(`${server.url}/console/api/session`, { headers: { Cookie: s.cookie } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      code: 'ERR_SESSION_INVALID',
      message: expect.stringContaining('expired'),
    });
  });

  it('limits sign-in attempts per address', async () => {
    const attempt = () =>
      fetch(`${server.url}/console/api/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.0.7.1' },
        body: JSON.stringify({ api_key: 'nope' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await attempt()).status);
    expect(statuses.slice(0, 6).every((s) => s === 401)).toBe(true);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });
});

describe('credentials need the API key typed again (issue 40, item 7)', () => {
  /** Every procedure that mints or changes a credential, with an input for it. */
  const credentialCalls = async (userId: number): Promise<Array<[string, unknown]>> => {
    const em = services.orm.em.fork();
    const { site } = await createSite(em, userId, { name: 'Held', origins: ['https://held.example'] });
    return [
      ['keys.create', { name: 'stolen' }],
      ['keys.revoke', { id: 1 }],
      ['sites.create', { name: 'Stolen', origins: ['https://stolen.example'] }],
      ['sites.rotateSecret', { sitekey: site.sitekey }],
      ['sites.delete', { sitekey: site.sitekey }],
      ['webhooks.create', { url: 'http://93.184.215.14/hook', events: ['audit.completed'] }],
      ['webhooks.delete', { id: '1' }],
    ];
  };

  it('a session alone mints or changes no credential: every such call is 403 ERR_KEY_CONFIRMATION_REQUIRED', async () => {
    const { user, key } = await createKeyedUser(services, 'stolen-session');
    const s = await signIn(key, '10.0.8.1');
    for (const [path, input] of await credentialCalls(user.id)) {
      const res = await trpc(s, path, input);
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatchObject({ code: 'ERR_KEY_CONFIRMATION_REQUIRED', status: 403 });
      expect(res.body.message).toMatch(/type your API key again/);
    }
    // A batch carrying one such call among others is refused whole, before any call runs.
    const batch = await fetch(`${server.url}/trpc/sites.list,keys.create?batch=1`, {
      method: 'POST',
      headers: {
        Cookie: s.cookie,
        'X-CSRF-Token': s.csrf,
        'X-Forwarded-For': s.ip,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ 0: {}, 1: { name: 'stolen' } }),
    });
    expect(batch.status).toBe(403);
    expect(await batch.json()).toMatchObject({ code: 'ERR_KEY_CONFIRMATION_REQUIRED' });
    // Nothing changed: one key, the one site, no webhook.
    expect((await trpc(s, 'keys.list')).body.result.data.data).toHaveLength(1);
    expect((await trpc(s, 'sites.list')).body.result.data.data.map((x: any) => x.name)).toEqual(['Held']);
    expect((await trpc(s, 'webhooks.list')).body.result.data.data).toEqual([]);
    // Reading needs no key: the session still lists and changes what is not a credential.
    expect((await trpc(s, 'account.get')).status).toBe(200);
  });

  it('with an active key of the account typed again it can; a wrong, revoked or another account’s key is 403', async () => {
    const { user, key } = await createKeyedUser(services, 'confirming');
    const stranger = await createKeyedUser(services, 'stranger');
    let s = await signIn(key, '10.0.9.1');
    const wrong = 'ak_0000000000_' + 'x'.repeat(43);
    for (const confirmKey of [wrong, stranger.key, 'not a key']) {
      const res = await trpc(s, 'keys.create', { name: 'second' }, { confirmKey });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'ERR_KEY_CONFIRMATION_INVALID',
        message: 'That is not an active API key of this account; type one of its keys.',
      });
    }
    const created = await trpc(s, 'keys.create', { name: 'second' }, { confirmKey: key });
    expect(created.status).toBe(200);
    const second = created.body.result.data.data as { id: number; key: string };
    expect(second.key).toMatch(/^ak_/);
    // The same session from further addresses: confirmations count per address (6 here).
    s = { ...s, ip: '10.0.9.2' };
    // Any active key of the account confirms, not only the session's own.
    const site = await trpc(
      s,
      'sites.create',
      { name: 'Shop', origins: ['https://shop.example'] },
      { confirmKey: second.key },
    );
    expect(site.body.result.data.data.secret).toMatch(/^sec_/);
    const sitekey = site.body.result.data.data.sitekey as string;
    const rotated = await trpc(s, 'sites.rotateSecret', { sitekey }, { confirmKey: key });
    expect(rotated.body.result.data.data.secret).toMatch(/^sec_/);
    const hook = await trpc(
      s,
      'webhooks.create',
      { url: 'http://93.184.215.14/hook', events: ['audit.completed'] },
      { confirmKey: key },
    );
    expect(hook.status).toBe(200);
    const hookId = String(hook.body.result.data.data.id);
    s = { ...s, ip: '10.0.9.3' };
    expect((await trpc(s, 'webhooks.delete', { id: hookId }, { confirmKey: key })).status).toBe(200);
    expect((await trpc(s, 'sites.delete', { sitekey }, { confirmKey: key })).status).toBe(200);
    // A revoked key confirms nothing.
    expect((await trpc(s, 'keys.revoke', { id: second.id }, { confirmKey: key })).status).toBe(200);
    const revoked = await trpc(s, 'keys.create', { name: 'third' }, { confirmKey: second.key });
    expect(revoked.body).toMatchObject({ code: 'ERR_KEY_CONFIRMATION_INVALID' });
    expect(user.id).toBeGreaterThan(0);
  });

  it('leaves Bearer-key calls as they were, on /trpc and REST', async () => {
    const { key } = await createKeyedUser(services, 'bearer');
    const bearer = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${server.url}/trpc/keys.create`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ name: 'from a script' }),
    });
    expect(created.status).toBe(200);
    const site = await fetch(`${server.url}/trpc/sites.create`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ name: 'Script', origins: ['https://script.example'] }),
    });
    expect(site.status).toBe(200);
    const hook = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ url: 'http://93.184.215.14/hook', events: ['audit.completed'] }),
    });
    expect(hook.status).toBe(201);
    const { data } = (await hook.json()) as { data: { id: number } };
    expect(
      (await fetch(`${server.url}/api/v1/webhooks/${data.id}`, { method: 'DELETE', headers: bearer })).status,
    ).toBe(200);
  });

  it('limits confirmations per address as sign-ins are', async () => {
    const { key } = await createKeyedUser(services, 'guesser');
    const s = await signIn(key, '10.0.10.1');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await trpc(s, 'keys.create', { name: 'x' }, { confirmKey: `ak_000000000${i}_${'y'.repeat(43)}` })).status,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 403]);
    // The right key, past the limit, waits like any other attempt.
    const limited = await trpc(s, 'keys.create', { name: 'x' }, { confirmKey: key });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'ERR_RATE_LIMITED' });
    // What needs no confirmation is not counted, nor a credential call with no key typed (refused at once).
    expect((await trpc(s, 'sites.list')).status).toBe(200);
    expect((await trpc(s, 'keys.create', { name: 'x' })).body).toMatchObject({ code: 'ERR_KEY_CONFIRMATION_REQUIRED' });
  });
});

describe('the console behind https (PUBLIC_URL)', () => {
  it('marks the cookie Secure and takes PUBLIC_URL’s origin as its own', async () => {
    const secure = await openTestServices({ env: { PUBLIC_URL: 'https://console.example' } });
    const app = await startTestServer(secure);
    try {
      const { key } = await createKeyedUser(secure, 'console-https');
      const post = (origin: string) =>
        fetch(`${app.url}/console/api/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: origin },
          body: JSON.stringify({ api_key: key }),
        });
      const foreign = await post(app.url);
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toMatchObject({ code: 'ERR_CSRF' });
      const res = await post('https://console.example');
      expect(res.status).toBe(201);
      expect(res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await app.close();
      await secure.cleanup();
    }
  }, 60_000);
});
