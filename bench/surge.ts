import { pathToFileURL } from 'node:url';
import { openStores, type Stores } from '../src/stores/index.ts';
import { memoryCounterStore } from '../src/stores/counter-store.ts';
import { extraBits, observe, type Evidence } from '../src/captcha/evidence.ts';

/**
 * Surge prices over an attack's first hours, in simulated time (memory stores on an injected
 * clock; nothing here depends on the machine): a site with a steady past (two days of its usual
 * traffic) takes 120 challenges a minute, each from a /16 it never saw. Printed: the price
 * multiple of an attacker's challenge (2^extra bits, the calm price being 1) after 1, 10, 60
 * and 180 minutes, under the rule before (the site's rate against twice its average minute
 * of the last hour, reproduced here only as the baseline to compare) and after (a capped
 * baseline over a day, and new networks priced apart: src/captcha/surge.ts), their ratio, and
 * what a usual visitor (a network the site saw yesterday) pays meanwhile.
 *
 * Two sites: a quiet one (5 a minute from its usual networks, 1 from newcomers) and a busy
 * one (50 and 10), where the attack is a smaller share of the traffic.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = 20_000 * DAY + 12 * HOUR;
const MARKS = [1, 10, 60, 180];
const ua = { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36', acceptLanguage: 'en' };

interface Site {
  name: string;
  usualPerMinute: number;
  newcomersPerMinute: number;
}
const SITES: Site[] = [
  { name: 'quiet site (5 + 1 new a minute)', usualPerMinute: 5, newcomersPerMinute: 1 },
  { name: 'busy site (50 + 10 new a minute)', usualPerMinute: 50, newcomersPerMinute: 10 },
];

/** The attacker: a /16 never used before for each challenge (1.0.x.x upwards, below 172). */
let attackers = 0;
const attacker = () => {
  const n = attackers++;
  return `${1 + (n >> 8)}.${n & 255}.7.7`;
};
/** Newcomers each from an IPv6 /48 never seen; the usual visitors in 200 IPv4 /16s (172.0-199). */
let newcomers = 0;
const newcomer = () => {
  const n = newcomers++;
  return `2001:${(0x1000 + (n >> 16)).toString(16)}:${(n & 0xffff).toString(16)}::1`;
};
const usual = (i: number) => `172.${i % 200}.${(i >> 8) & 255}.${1 + (i % 250)}`;

/** The rule before: a sliding hour of the site's challenges, as observe() counted it then. */
function hourBaseline(stores: Stores, site: string, now: number): Promise<number> {
  const index = Math.floor(now / HOUR);
  const elapsed = (now - index * HOUR) / HOUR;
  const key = `old:sh:${site}`;
  return stores.counters
    .tally([{ key: `${key}:${index}`, windowMs: 2 * HOUR }], [`${key}:${index - 1}`])
    .then(([current, previous]) => (current + previous * (1 - elapsed)) / 60);
}

async function run(site: Site) {
  const clock = { now: 0 };
  const base = await openStores({ keyPrefix: `benchsurge${newcomers}:` });
  const stores: Stores = { ...base, counters: memoryCounterStore(() => clock.now) };
  const visit = async (ip: string, t: number): Promise<{ ev: Evidence; before: number }> => {
    clock.now = t;
    const ev = await observe(stores, 's', { ip, ...ua }, t);
    const hour = await hourBaseline(stores, 's', t);
    // Evidence without the new-network fields is priced by the site's rate alone, as before.
    const old = {
      ...ev,
      siteBaseline: hour,
      newNetwork: undefined,
      newNetworkRate: undefined,
      newNetworkBaseline: undefined,
    };
    return { ev, before: extraBits(old).bits };
  };
  const perMinute = site.usualPerMinute + site.newcomersPerMinute;
  const step = MINUTE / perMinute;
  let i = 0;
  const calm = (t: number) => visit(i % perMinute < site.newcomersPerMinute ? newcomer() : usual(i), t).then(() => i++);
  for (let t = START - 50 * HOUR; t < START; t += step) await calm(t);
  const rows: string[] = [];
  let nextCalm = START;
  for (let minute = 1; minute <= MARKS[MARKS.length - 1]; minute++) {
    let last: { ev: Evidence; before: number } | undefined;
    for (let j = 0; j < 120; j++) {
      const t = START + (minute - 1) * MINUTE + j * 500;
      while (nextCalm <= t) await calm((nextCalm += step) - step);
      last = await visit(attacker(), t);
    }
    if (MARKS.includes(minute)) {
      const after = extraBits(last!.ev);
      const visitor = extraBits((await visit(usual(i++), clock.now)).ev).bits;
      rows.push(
        `  ${String(minute).padStart(3)} min: before x${2 ** last!.before}, after x${2 ** after.bits}` +
          ` (${after.reasons.join(' ') || 'calm'}), ratio ${2 ** (after.bits - last!.before)}; usual visitor x${2 ** visitor}`,
      );
    }
  }
  await base.close();
  return rows;
}

export async function main(): Promise<void> {
  console.log('Price multiple of a challenge, 120 a minute from new networks (simulated time; calm price = x1)');
  for (const site of SITES) {
    const started = performance.now();
    const rows = await run(site);
    console.log(`${site.name}  [${((performance.now() - started) / 1000).toFixed(1)} s of simulation]`);
    for (const row of rows) console.log(row);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
