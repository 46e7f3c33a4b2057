import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../services.ts';
import { SiteSchema } from '../entities/site.entity.ts';
import { UserSchema } from '../entities/user.entity.ts';
import { createSite, rotateSecret, siteBySecret, updateSite } from '../captcha/sites.ts';

/** The site the demo pages use. The secret stays on the server (DATA_DIR/demo-site.json). */
export interface DemoSite {
  sitekey: string;
  secret: string;
  /** Origins the demo pages may be opened on. */
  origins: string[];
}

/** Where the embedded start keeps the demo site's sitekey and secret (mode 0600). */
export const DEMO_SITE_FILE = 'demo-site.json';

const registered = new WeakMap<object, DemoSite>();

/** Makes `/demo` of the app built on `services` use `demo`. */
export function registerDemoSite(services: Services, demo: DemoSite): void {
  registered.set(services, demo);
}

/** The demo site of these services, if one was registered (the embedded start does). */
export function demoSiteFor(services: Services): DemoSite | undefined {
  return registered.get(services);
}

/** `http://localhost[:port]` or `http://127.0.0.1[:port]`: the origins the demo site is kept on. */
export const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/;

function readSaved(file: string): { sitekey: string; secret: string } | null {
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { sitekey?: unknown; secret?: unknown };
    return typeof saved.sitekey === 'string' && typeof saved.secret === 'string'
      ? { sitekey: saved.sitekey, secret: saved.secret }
      : null;
  } catch {
    return null;
  }
}

function save(file: string, demo: { sitekey: string; secret: string }): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ sitekey: demo.sitekey, secret: demo.secret }, null, 2)}\n`, { mode: 0o600 });
}

/**
 * The demo site for `http://localhost:<port>` and `http://127.0.0.1:<port>`: the one named
 * in `dataDir/demo-site.json` when it still exists (its loopback origins moved to `port`;
 * its secret rotated if the saved one no longer matches), else a new one owned by the first
 * user (the local user of the embedded start). `created` tells whether the file was written.
 */
export async function ensureDemoSite(
  em: EntityManager,
  dataDir: string,
  port: number,
): Promise<{ demo: DemoSite; created: boolean }> {
  const file = path.resolve(dataDir, DEMO_SITE_FILE);
  const origins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  const saved = readSaved(file);
  const site = saved ? await em.findOne(SiteSchema, { sitekey: saved.sitekey }) : null;
  if (saved && site) {
    const ownerId = site.owner.id;
    const wanted = [...site.origins.filter((o) => !LOOPBACK_ORIGIN.test(o)), ...origins];
    if (wanted.join() !== site.origins.join()) await updateSite(em, ownerId, site.sitekey, { origins: wanted });
    if ((await siteBySecret(() => em, saved.secret))?.sitekey === site.sitekey)
      return { demo: { ...saved, origins: wanted }, created: false };
    const { secret } = await rotateSecret(em, ownerId, site.sitekey);
    save(file, { sitekey: site.sitekey, secret });
    return { demo: { sitekey: site.sitekey, secret, origins: wanted }, created: true };
  }
  const [owner] = await em.find(UserSchema, {}, { orderBy: { id: 'asc' }, limit: 1 });
  if (!owner) throw new Error('no user to own the demo site');
  const { site: made, secret } = await createSite(em, owner.id, { name: 'Demo (localhost)', origins });
  save(file, { sitekey: made.sitekey, secret });
  return { demo: { sitekey: made.sitekey, secret, origins }, created: true };
}

/**
 * The embedded start's demo: ensures the site, registers it for `/demo` and prints where
 * to go. Never fails the start; a problem is logged.
 */
export async function startDemo(
  services: Services,
  port: number,
  print: (line: string) => void = console.log,
): Promise<void> {
  try {
    const { demo, created } = await ensureDemoSite(services.orm.em.fork(), services.config.DATA_DIR, port);
    registerDemoSite(services, demo);
    if (created)
      print(
        `Demo site registered (sitekey ${demo.sitekey}); its secret is in ${path.join(services.config.DATA_DIR, DEMO_SITE_FILE)}`,
      );
    print(`Widget demo: http://localhost:${port}/demo`);
  } catch (err) {
    services.log.warn({ err }, 'demo site not available');
  }
}
