import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { openTestServices, startTestServer } from '../test/helpers/services.ts';
import { createTestSite, siteverify } from '../test/helpers/captcha.ts';
import { httpBotToken, type LayoutAnswer } from '../test/helpers/http-bot.ts';
import { launchChromium } from '../test/e2e/harness.ts';
import { paragraphWithTaffy } from '../test/adversary/taffy-bot.ts';
import { answerWith } from '../test/adversary/layout-bot.ts';
import { dropflowBot } from '../test/adversary/dropflow-bot.ts';
import { main as surgePrices } from './surge.ts';
import { openProbeOracle } from '../test/helpers/probe-oracle.ts';
import { ChildCpu, firefoxPersonMissing, personMissing, startPerson } from '../test/helpers/person.ts';
import { FRAMEWORKS, frameworksMissing, launchFramework } from '../test/adversary/frameworks.ts';
import { startWidgetPage, type WidgetPage } from '../test/helpers/widget-page.ts';

/**
 * The attackers side by side, in one run against one service (in-process, PGlite, the tests'
 * loopback ASN dataset: 127.0.0.1 residential, 127.0.0.2 a hosting network): for each, its v3
 * scores on a site with `min_score` 0 (so every score shows), how many of them a site's
 * default minimum (0.5) accepts, and the CPU-seconds it spends per token and per accepted
 * token; then the price of a challenge at 120 a minute from new /16s after 1, 10 and 60
 * minutes (bench/surge.ts, simulated time).
 *
 * - person, Chromium / Firefox ESR: headed on Xvfb, driven by xdotool, no automation protocol
 *   (test/helpers/person.ts), from 127.0.0.1; measured first, so no attacker's pace counts
 *   against them;
 * - work only, layout library (Taffy), inline layout library (Dropflow), layout oracle (one
 *   headless page running the widget's env-probes bundle): an HTTP client doing the work
 *   natively and sending a person's telemetry and page report, each request from a new /16
 *   (X-Forwarded-For); Dropflow and the oracle again from the hosting network (bound to
 *   127.0.0.2);
 * - each framework of test/adversary/frameworks.ts on the customer's page, from 127.0.0.1.
 *
 * CPU-seconds: this process's CPU time (process.cpuUsage: the client, its solver threads and
 * the in-process service's share of each request, the same for every row) plus every child
 * process's started after the service (the attackers' browsers, chromedriver and Xvfb, read
 * from /proc; the service's own Chromium excluded) over the attacker's tokens.
 *
 * Run: npx tsx bench/adversary-score.ts [N=3]
 */

interface Row {
  attacker: string;
  cpu: number;
  scores: number[];
  note?: string;
}

/** A site's default minimum: what "accepted" means below. */
const DEFAULT_MIN = 0.5;
const LOOPBACK_ASN = fileURLToPath(new URL('../test/adversary/loopback-asn.csv', import.meta.url));

async function waitUntil<T>(check: () => T | undefined, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The n-th token page `id` reported. */
const nthToken = (pages: WidgetPage, id: string, n: number) =>
  pages.reports.filter((r) => r.kind === 'token' && r.page === id)[n]?.token as string | undefined;

export async function main(n = 3): Promise<Row[]> {
  const services = await openTestServices({
    env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto', ASN_DATABASE: LOOPBACK_ASN },
  });
  const server = await startTestServer(services);
  const pages = await startWidgetPage(server.url);
  const rows: Row[] = [];
  let oracleBrowser: Browser | undefined;
  try {
    const site = async () => createTestSite(services, [pages.origin], { min_score: 0 });
    // The service's own Chromium (the environment proof's engine) is running by now: not counted.
    await services.engineReference?.warm();
    const children = new ChildCpu();
    const cpuNow = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6 + children.sample();
    };
    const measure = async (attacker: string, one: (i: number, sitekey: string) => Promise<string>, note?: string) => {
      const s = await site();
      const scores: number[] = [];
      let cpu = 0;
      try {
        for (let i = 0; i < n; i++) {
          const before = cpuNow();
          const token = await one(i, s.sitekey);
          cpu += cpuNow() - before;
          const v = await siteverify(server.url, { secret: s.secret, response: token });
          scores.push(typeof v.body.score === 'number' ? (v.body.score as number) : -1);
        }
      } catch (err) {
        note = `${note ? `${note}; ` : ''}stopped: ${(err as Error).message.slice(0, 80)}`;
      }
      rows.push({ attacker, cpu: scores.length ? cpu / scores.length : NaN, scores, note });
    };

    for (const browser of ['chromium', 'firefox'] as const) {
      const attacker = `person, ${browser === 'chromium' ? 'Chromium' : 'Firefox ESR'}`;
      if (browser === 'chromium' ? personMissing : firefoxPersonMissing) {
        rows.push({ attacker, cpu: NaN, scores: [], note: 'no Xvfb/xdotool/browser here' });
        continue;
      }
      const id = `bench-${browser}`;
      const loads = () => pages.reports.filter((r) => r.kind === 'geometry' && r.page === id).length;
      const s = await site();
      const before = cpuNow();
      const p = await startPerson(pages.url('invisible', s.sitekey, id), { browser });
      const start = cpuNow() - before; // the browser's start, shared by its tokens
      const scores: number[] = [];
      let cpu = 0;
      try {
        for (let i = 0; i < n; i++) {
          const at = cpuNow();
          // Each token on a fresh page load: the first from the start, then F5.
          if (i > 0) await p.key('F5');
          await p.waitFor(() => (loads() > i ? true : undefined), 45_000, 'the page to load');
          await p.moveAlong([
            [260 + 40 * i, 300],
            [420, 360 + 10 * i],
          ]);
          // Tab to the Sign-in button (the page reports what has focus), then Return.
          const focus = () => pages.reports.filter((r) => r.kind === 'state' && r.page === id).at(-1)?.focus;
          for (let t = 0; t < 12 && focus() !== 'Sign in'; t++) {
            await p.key('Tab');
            await new Promise((r) => setTimeout(r, 250));
          }
          await p.key('Return');
          const token = await p.waitFor(() => nthToken(pages, id, i), 60_000, "the person's token");
          cpu += cpuNow() - at;
          const v = await siteverify(server.url, { secret: s.secret, response: token });
          scores.push(v.body.score as number);
        }
      } finally {
        await p.close();
      }
      rows.push({ attacker, cpu: cpu / n, scores, note: `plus ${start.toFixed(2)} CPU-s to start the browser` });
    }

    const http = (attacker: string, answer: LayoutAnswer, localAddress?: string) =>
      measure(attacker, (_i, sitekey) =>
        httpBotToken(server.url, { sitekey, origin: pages.origin, answer, localAddress }),
      );
    await http('work only', () => undefined);
    await http('layout library (Taffy)', (p) => (p ? paragraphWithTaffy(p).join(',') : undefined));
    await http('inline layout library (Dropflow)', answerWith(dropflowBot));
    await http('inline layout library (Dropflow), hosting network', answerWith(dropflowBot), '127.0.0.2');
    oracleBrowser = await launchChromium();
    const oracle = await openProbeOracle(oracleBrowser);
    const oracleAnswer: LayoutAnswer = async (p) => (p ? (await oracle.measure([p]))[0].join(',') : undefined);
    await http('layout oracle', oracleAnswer);
    await http('layout oracle, hosting network', oracleAnswer, '127.0.0.2');
    await oracle.close();
    await oracleBrowser.close();
    oracleBrowser = undefined;

    if (frameworksMissing)
      rows.push({ attacker: 'frameworks', cpu: NaN, scores: [], note: 'no Chromium/chromedriver/Xvfb' });
    else
      for (const kind of FRAMEWORKS) {
        const before = cpuNow();
        const bot = await launchFramework(kind);
        const start = cpuNow() - before;
        try {
          await measure(
            kind,
            async (i, sitekey) => {
              const id = `bench-${kind}-${sitekey}`;
              await bot.visit(pages.url('invisible', sitekey, id));
              await bot.click('signin');
              return waitUntil(() => nthToken(pages, id, i), 60_000, `${kind}'s token`);
            },
            `plus ${start.toFixed(2)} CPU-s to start it`,
          );
        } finally {
          await bot.close();
        }
      }

    console.log(`\nAttackers and people, ${n} v3 tokens each, scored on a site with min_score 0`);
    console.log(`| attacker | scores | accepted at ${DEFAULT_MIN} | CPU-s per token | CPU-s per accepted token |`);
    console.log(`|---|---|---|---|---|`);
    for (const r of rows) {
      const accepted = r.scores.filter((x) => x >= DEFAULT_MIN).length;
      const per = Number.isNaN(r.cpu) ? '-' : r.cpu.toFixed(2);
      const perAccepted = !r.scores.length
        ? '-'
        : accepted
          ? ((r.cpu * r.scores.length) / accepted).toFixed(2)
          : 'none accepted';
      console.log(
        `| ${r.attacker} | ${r.scores.join(', ') || '-'} | ${accepted}/${r.scores.length} | ${per}${r.note ? ` (${r.note})` : ''} | ${perAccepted} |`,
      );
    }
    console.log('');
    await surgePrices();
    return rows;
  } finally {
    await oracleBrowser?.close();
    await pages.close();
    await server.close();
    await services.cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(Number(process.argv[2] ?? 3));
}
