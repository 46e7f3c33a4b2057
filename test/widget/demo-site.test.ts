import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKeyedUser, openTestServices, type TestServices } from '../helpers/services.ts';
import { SiteSchema } from '../../src/entities/site.entity.ts';
import { siteBySecret, updateSite } from '../../src/captcha/sites.ts';
import { DEMO_SITE_FILE, demoSiteFor, ensureDemoSite, startDemo } from '../../src/demo/site.ts';

describe('demo site of the embedded start', () => {
  let services: TestServices;
  let owner: number;

  beforeAll(async () => {
    services = await openTestServices();
    owner = (await createKeyedUser(services, 'local')).user.id;
  });
  afterAll(() => services.cleanup());

  const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'demo-site-'));
  const em = () => services.orm.em.fork();

  it('creates a site for both loopback names, keeps its secret in a 0600 file, and reuses it', async () => {
    const dir = tmp();
    const first = await ensureDemoSite(em(), dir, 4100);
    expect(first.created).toBe(true);
    expect(first.demo.origins).toEqual(['http://localhost:4100', 'http://127.0.0.1:4100']);
    const file = path.join(dir, DEMO_SITE_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ sitekey: first.demo.sitekey, secret: first.demo.secret });
    const site = await em().findOneOrFail(SiteSchema, { sitekey: first.demo.sitekey });
    expect(site.owner.id).toBe(owner);
    expect((await siteBySecret(em, first.demo.secret))?.sitekey).toBe(first.demo.sitekey);

    const again = await ensureDemoSite(em(), dir, 4100);
    expect(again).toEqual({ demo: first.demo, created: false });
  });

  it('follows the port, keeping origins someone added', async () => {
    const dir = tmp();
    const { demo } = await ensureDemoSite(em(), dir, 4200);
    await updateSite(em(), owner, demo.sitekey, { origins: [...demo.origins, 'https://shop.example'] });
    const moved = await ensureDemoSite(em(), dir, 4300);
    expect(moved.created).toBe(false);
    expect(moved.demo.origins).toEqual(['https://shop.example', 'http://localhost:4300', 'http://127.0.0.1:4300']);
    expect((await em().findOneOrFail(SiteSchema, { sitekey: demo.sitekey })).origins).toEqual(moved.demo.origins);
  });

  it('rotates the secret when the saved one no longer matches, and starts over when the site is gone', async () => {
    const dir = tmp();
    const file = path.join(dir, DEMO_SITE_FILE);
    const { demo } = await ensureDemoSite(em(), dir, 4400);
    writeFileSync(
      file,
      JSON.stringify({ sitekey: demo.sitekey, secret: 'sec_0000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
    );
    const rotated = await ensureDemoSite(em(), dir, 4400);
    expect(rotated.created).toBe(true);
    expect(rotated.demo.sitekey).toBe(demo.sitekey);
    expect((await siteBySecret(em, rotated.demo.secret))?.sitekey).toBe(demo.sitekey);

    writeFileSync(file, '{ not json');
    const fresh = await ensureDemoSite(em(), dir, 4400);
    expect(fresh.created).toBe(true);
    expect(fresh.demo.sitekey).not.toBe(demo.sitekey);
  });

  it('startDemo registers the site for /demo and prints where to go, never the secret', async () => {
    const lines: string[] = [];
    const config = { ...services.config, DATA_DIR: tmp() };
    const scoped = { ...services, config };
    await startDemo(scoped, 4500, (l) => lines.push(l));
    const demo = demoSiteFor(scoped)!;
    expect(demo.origins).toEqual(['http://localhost:4500', 'http://127.0.0.1:4500']);
    expect(lines).toEqual([
      `Demo site registered (sitekey ${demo.sitekey}); its secret is in ${path.join(config.DATA_DIR, DEMO_SITE_FILE)}`,
      'Widget demo: http://localhost:4500/demo',
    ]);
    expect(lines.join('\n')).not.toContain(demo.secret);
  });
});
