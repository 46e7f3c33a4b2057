import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { announceGatewayChange } from './gateway/registry.ts';
import { openServices, type OpenedServices } from './services.ts';
import { createUser, describeUser, findUser } from './accounts/users.ts';
import { createApiKey, describeApiKey, listApiKeys, revokeApiKey } from './accounts/api-keys.ts';
import { assertEmbeddedDatabaseFree, DatabaseLockedError, EXIT_DATABASE_LOCKED } from './db/lock.ts';
import {
  createSite,
  deleteSite,
  describeSite,
  listSites,
  rotateSecret,
  updateSite,
  type SecuritySettings,
} from './captcha/sites.ts';

/** A CLI command: parsed flags and positionals in, exit code out. Output goes to stdout. */
type Command = (s: OpenedServices, flags: Record<string, string | undefined>, args: string[]) => Promise<number>;

const usage = `Usage: npm run cli -- <command> [options]

Commands:
  migrate                                  apply pending database migrations
  user:create --name NAME [--email EMAIL]  create a user
  key:create --user ID|EMAIL [--name NAME] create an API key (printed once)
  key:list [--user ID|EMAIL]               list API keys (prefixes, never secrets)
  key:revoke ID|PREFIX                     revoke an API key
  site:create --user ID|EMAIL --name NAME --origin ORIGIN [--origin ORIGIN ...] [--siteverify-per-minute N]
                                           register a site (secret printed once)
  site:list --user ID|EMAIL                list a user's sites
  site:update SITEKEY --user ID|EMAIL [--name NAME] [--origin ORIGIN ...] [--siteverify-per-minute N|default]
                                           rename a site, replace its origins, or raise its
                                           siteverify limit (calls a minute per address; default 120)
  site:create / site:update also take [--security-level low|default|high] [--min-work-bits N|none]:
                                           the proof of work every token costs (docs/challenges.md, "Security levels")
                                           and [--min-score 0..1]: siteverify refuses tokens scoring below it (default 0.5)
  site:rotate SITEKEY --user ID|EMAIL      new secret (printed once); the old one stops working
  site:delete SITEKEY --user ID|EMAIL      delete a site

On the embedded database (no DATABASE_URL) the CLI refuses to run while the service is
running on the same DATA_DIR (exit code 75); stop the service first, or use the HTTP API.`;

const SECURITY_USAGE =
  '--security-level takes low, default or high; --min-work-bits a whole number from 16 to 30, or none; --min-score a number from 0 to 1 with at most two decimals';

/** --security-level and --min-work-bits as site settings; null when either is malformed. */
function securitySettings(flags: Record<string, string | undefined>): SecuritySettings | null {
  const out: SecuritySettings = {};
  const level = flags['security-level'];
  if (level !== undefined) {
    if (level !== 'low' && level !== 'default' && level !== 'high') return null;
    out.security_level = level;
  }
  const bits = flags['min-work-bits'];
  if (bits !== undefined) {
    if (bits === 'none') out.min_work_bits = null;
    else if (/^\d+$/.test(bits) && Number(bits) >= 16 && Number(bits) <= 30) out.min_work_bits = Number(bits);
    else return null;
  }
  const minScore = flags['min-score'];
  if (minScore !== undefined) {
    if (!/^(0(\.\d{1,2})?|1(\.0{1,2})?)$/.test(minScore)) return null;
    out.min_score = Number(minScore);
  }
  return out;
}

const commands: Record<string, Command> = {
  async migrate(s) {
    // openServices has applied them; report what it did.
    console.log(
      s.migrationsApplied.length ? `applied: ${s.migrationsApplied.join(', ')}` : 'migrations are up to date',
    );
    return 0;
  },
  async 'user:create'(s, flags) {
    if (!flags.name) return fail('--name is required');
    const user = await createUser(s.orm.em.fork(), { name: flags.name, email: flags.email });
    console.log(JSON.stringify(describeUser(user)));
    return 0;
  },
  async 'key:create'(s, flags) {
    if (!flags.user) return fail('--user is required');
    const em = s.orm.em.fork();
    const user = await findUser(em, flags.user);
    if (!user) return fail(`no user ${flags.user}`);
    const { apiKey, key } = await createApiKey(em, user, flags.name ?? 'cli');
    console.log(JSON.stringify(describeApiKey(apiKey)));
    console.log(`API key (shown once, keep it): ${key}`);
    return 0;
  },
  async 'key:list'(s, flags) {
    const em = s.orm.em.fork();
    let userId: number | undefined;
    if (flags.user) {
      const user = await findUser(em, flags.user);
      if (!user) return fail(`no user ${flags.user}`);
      userId = user.id;
    }
    for (const k of await listApiKeys(em, userId))
      console.log(JSON.stringify({ ...describeApiKey(k), user: k.user.id }));
    return 0;
  },
  async 'key:revoke'(s, _flags, args) {
    if (!args[0]) return fail('give the key id or prefix');
    const key = await revokeApiKey(s.orm.em.fork(), args[0], undefined, s.stores);
    if (!key) return fail(`no key ${args[0]}`);
    console.log(JSON.stringify(describeApiKey(key)));
    return 0;
  },
  async 'site:create'(s, flags) {
    if (!flags.name || !flags.origin) return fail('--name and at least one --origin are required');
    const user = await requireUser(s, flags.user);
    if (!user) return 2;
    const perMinute = siteverifyLimit(flags['siteverify-per-minute']);
    if (perMinute === false) return fail('--siteverify-per-minute takes a whole number from 1 to 1000000, or default');
    const security = securitySettings(flags);
    if (!security) return fail(SECURITY_USAGE);
    const { site, secret } = await createSite(s.orm.em.fork(), user.id, {
      name: flags.name,
      origins: flags.origin.split(','),
      siteverifyPerMinute: perMinute,
      ...security,
    });
    console.log(JSON.stringify(describeSite(site)));
    console.log(`Site secret (shown once, keep it): ${secret}`);
    return 0;
  },
  async 'site:list'(s, flags) {
    const user = await requireUser(s, flags.user);
    if (!user) return 2;
    for (const site of await listSites(s.orm.em.fork(), user.id)) console.log(JSON.stringify(describeSite(site)));
    return 0;
  },
  async 'site:update'(s, flags, args) {
    const user = await requireUser(s, flags.user);
    if (!user || !args[0]) return fail('give the sitekey and --user');
    const perMinute = siteverifyLimit(flags['siteverify-per-minute']);
    if (perMinute === false) return fail('--siteverify-per-minute takes a whole number from 1 to 1000000, or default');
    const security = securitySettings(flags);
    if (!security) return fail(SECURITY_USAGE);
    const site = await updateSite(s.orm.em.fork(), user.id, args[0], {
      name: flags.name,
      origins: flags.origin?.split(','),
      siteverifyPerMinute: perMinute,
      ...security,
    });
    await announceGatewayChange(s.stores);
    console.log(JSON.stringify(describeSite(site)));
    return 0;
  },
  async 'site:rotate'(s, flags, args) {
    const user = await requireUser(s, flags.user);
    if (!user || !args[0]) return fail('give the sitekey and --user');
    const { site, secret } = await rotateSecret(s.orm.em.fork(), user.id, args[0]);
    await announceGatewayChange(s.stores);
    console.log(JSON.stringify(describeSite(site)));
    console.log(`Site secret (shown once, keep it): ${secret}`);
    return 0;
  },
  async 'site:delete'(s, flags, args) {
    const user = await requireUser(s, flags.user);
    if (!user || !args[0]) return fail('give the sitekey and --user');
    await deleteSite(s.orm.em.fork(), user.id, args[0]);
    await announceGatewayChange(s.stores);
    console.log(JSON.stringify({ sitekey: args[0], deleted: true }));
    return 0;
  },
};

async function requireUser(s: OpenedServices, idOrEmail: string | undefined) {
  if (!idOrEmail) {
    fail('--user is required');
    return null;
  }
  const user = await findUser(s.orm.em.fork(), idOrEmail);
  if (!user) fail(`no user ${idOrEmail}`);
  return user;
}

/** `--siteverify-per-minute`: undefined when absent, null for `default`, false when invalid. */
function siteverifyLimit(value: string | undefined): number | null | undefined | false {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : false;
}

function fail(message: string): number {
  console.error(`error: ${message}`);
  return 2;
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.error(usage);
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        email: { type: 'string' },
        user: { type: 'string' },
        origin: { type: 'string', multiple: true },
        'siteverify-per-minute': { type: 'string' },
        'security-level': { type: 'string' },
        'min-work-bits': { type: 'string' },
        'min-score': { type: 'string' },
      },
      allowPositionals: true,
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return fail(`configuration: ${err.message}`);
    throw err;
  }
  // The embedded database has one owner (src/db/lock.ts): while the service runs on it, the
  // CLI refuses before touching any file in DATA_DIR.
  let services: OpenedServices;
  try {
    if (config.embedded) await assertEmbeddedDatabaseFree(config.DATA_DIR);
    // The CLI keeps stdout for its own output; logs go nowhere below warnings.
    services = await openServices(config, createLogger('warn'));
  } catch (err) {
    if (!(err instanceof DatabaseLockedError)) throw err;
    fail(err.message);
    return EXIT_DATABASE_LOCKED;
  }
  try {
    const flags = Object.fromEntries(
      Object.entries(parsed.values).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v as string | undefined)]),
    );
    return await command(services, flags, parsed.positionals);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    await services.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
