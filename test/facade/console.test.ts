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
  return { cookie: setCookie.split(';')[0], csrf: body.data.csrf_token, setCookie };
}

/** A /trpc call with the console's cookie (and, unless told, its CSRF token). */
async function trpc(s: Signed, path: string, input?: unknown, opts: { csrf?: string | null; origin?: string } = {}) {
  const mutation = opts.csrf !== undefined || input !== undefined;
  const headers: Record<string, string> = { Cookie: s.cookie };
  if (opts.origin) headers.Origin = opts.origin;
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
    expect((await trpc(s, 'sites.create', site, { csrf: null })).body).toMatchObject({ code: 'ERR_CSRF' });
    expect((await trpc(s, 'sites.create', site, { csrf: 'wrong' })).status).toBe(403);
    const foreign = await trpc(s, 'sites.create', site, { origin: 'https://evil.example' });
    expect(foreign.body).toMatchObject({ code: 'ERR_CSRF' });
    const made = await trpc(s, 'sites.create', site);
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
    expect((await trpc(sb, 'keys.revoke', { id: a.apiKey.id })).status).toBe(404);
    expect((await trpc(sb, 'sites.delete', { sitekey: siteA.site.sitekey })).status).toBe(404);
    expect((await trpc(sb, 'reports.list', { per_page: '10' })).body.result.data.data).toEqual([]);
  });

  it('ends the sessions of a revoked key at once', async () => {
    const { user, key, apiKey } = await createKeyedUser(services, 'console-revoke');
    const s = await signIn(key, '10.0.5.1');
    const other = await trpc(s, 'keys.create', { name: 'second' });
    expect(other.status).toBe(200);
    const second = await signIn(other.body.result.data.data.key, '10.0.5.2');
    expect((await trpc(second, 'keys.revoke', { id: apiKey.id })).status).toBe(200);
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
