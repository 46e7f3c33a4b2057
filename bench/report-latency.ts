/**
 * Raw report creation, one at a time: the latency of `POST /api/v1/reports` (no rendering) for a
 * local page, through the real HTTP stack of one in-process service, on the embedded database
 * and, when TEST_DATABASE_URL is set, on PostgreSQL. It is the figure the analyzer's slot lease
 * (src/reports/slot-leases.ts) must not spoil: every report takes and gives back one lease.
 *
 *   [TEST_DATABASE_URL=postgres://...] npx tsx bench/report-latency.ts [--reports 200]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { databaseSlots } from '../src/reports/shared-slots.ts';
import { openServices } from '../src/services.ts';
import { startFixtureSite } from '../test/helpers/fixture-site.ts';
import { createKeyedUser, freshPostgresDatabase, silentLog, startTestServer } from '../test/helpers/services.ts';

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Figure {
  database: string;
  reports: number;
  medianMs: number;
  p90Ms: number;
  p99Ms: number;
  /** Median of one slot lease taken and given back alone (what each report pays for it). */
  leaseMedianMs: number;
}

/** One service on `adminUrl`'s fresh database, or on an in-memory embedded one without it. */
async function measure(reports: number, siteUrl: string, adminUrl?: string): Promise<Figure> {
  const pg = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  const config = loadConfig({
    TOKEN_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    ANALYZER_RENDER: 'never',
    ANALYZER_ALLOW_PRIVATE: 'true',
    API_RATE_LIMIT: '100000',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
  });
  const services = await openServices(config, silentLog, { dataDir: null });
  const server = await startTestServer(services);
  try {
    const { key } = await createKeyedUser(services, 'bench');
    const create = async () => {
      const res = await fetch(`${server.url}/api/v1/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ url: `${siteUrl}/good` }).toString(),
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`report creation answered ${res.status}`);
    };
    // The first analyses start the engine (check workers, parser): not what is measured.
    for (let i = 0; i < 10; i++) await create();
    const times: number[] = [];
    for (let i = 0; i < reports; i++) {
      const started = performance.now();
      await create();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const slots = databaseSlots(services.orm, { perTenant: 2, queued: 0, waitMs: 1000 });
    const leases: number[] = [];
    for (let i = 0; i < reports; i++) {
      const started = performance.now();
      await (await slots.acquire('bench')).release();
      leases.push(performance.now() - started);
    }
    leases.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 100) / 100;
    return {
      database: pg ? 'PostgreSQL' : 'PGlite (in memory)',
      reports,
      medianMs: round(percentile(times, 50)),
      p90Ms: round(percentile(times, 90)),
      p99Ms: round(percentile(times, 99)),
      leaseMedianMs: round(percentile(leases, 50)),
    };
  } finally {
    await server.close();
    await services.close();
    await pg?.drop();
  }
}

export async function main(): Promise<Figure[]> {
  const reports = Number(arg('reports', '200'));
  const site = await startFixtureSite();
  const figures: Figure[] = [];
  try {
    figures.push(await measure(reports, site.url));
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (adminUrl) figures.push(await measure(reports, site.url, adminUrl));
  } finally {
    await site.close();
  }
  console.log('raw report creation, one at a time (POST /api/v1/reports, local page):');
  console.table(figures);
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
