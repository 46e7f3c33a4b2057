import { randomInt } from 'node:crypto';
import { pathToFileURL } from 'node:url';
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
import { launchBot, type BotKind } from '../test/helpers/stealth-browser.ts';
import { ChildCpu, personMissing, startPerson } from '../test/helpers/person.ts';
import { startWidgetPage, type WidgetPage } from '../test/helpers/widget-page.ts';

/**
 * The attackers side by side, in one run against one service (in-process, PGlite): for each,
 * the CPU-seconds it spends per v3 token and the scores siteverify reports (a site's default
 * minimum is 0.5); then the price of a challenge at 120 a minute from new /16s after 1, 10
 * and 60 minutes (bench/surge.ts, simulated time).
 *
 * - work only: an HTTP client doing the work natively (the test helpers' solver, walk.wat in
 *   worker threads) and sending no environment answer;
 * - layout library: the same client answering the paragraph with the Taffy bot
 *   (test/adversary/taffy-bot.ts: a wrapping flex row of words sized from our font);
 * - inline layout library: the same client answering with the Dropflow bot
 *   (test/adversary/dropflow-bot.ts: a CSS2 engine with floats and line breaking);
 * - layout oracle: the same client answering with one headless page running the widget's
 *   env-probes bundle (test/helpers/probe-oracle.ts);
 * - headless as launched / with trivial stealth: playwright-driven Chromium on the customer's
 *   page, `auditcaptcha.execute` from its Sign-in button (test/helpers/stealth-browser.ts);
 * - person: headed Chromium on Xvfb driven by xdotool (test/helpers/person.ts), the same page.
 *
 * CPU-seconds: this process's CPU time (process.cpuUsage: the client, its solver threads and
 * the in-process service's share of each request, the same for every row) plus every child
 * process's started after the service (the attackers' browsers and Xvfb, read from /proc; the
 * service's own Chromium excluded) over the attacker's tokens, divided by the tokens.
 * The HTTP clients send each request from a new /16 (X-Forwarded-For), the headless bots a new
 * /24 per page, the person from 127.0.0.1: nobody's pace counts against another.
 *
 * Run: npx tsx bench/adversary-score.ts [N=5]
 */

interface Row {
  attacker: string;
  tokens: number;
  cpu: number;
  scores: number[];
  note?: string;
}

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

export async function main(n = 5): Promise<Row[]> {
  const services = await openTestServices({ env: { TRUST_PROXY: 'true' } });
  const server = await startTestServer(services);
  const pages = await startWidgetPage(server.url);
  const rows: Row[] = [];
  let oracleBrowser: Browser | undefined;
  try {
    const attackers = [
      'work only',
      'layout library',
      'inline layout library',
      'layout oracle',
      'as-launched',
      'stealth',
      'person',
    ];
    const sites: Record<string, { sitekey: string; secret: string }> = {};
    for (const a of attackers) sites[a] = await createTestSite(services, [pages.origin]);
    // The service's own Chromium (the environment proof's engine) is running by now: not counted.
    const children = new ChildCpu();
    const cpuNow = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6 + children.sample();
    };
    const score = async (attacker: string, token: string) => {
      const v = await siteverify(server.url, { secret: sites[attacker].secret, response: token });
      return typeof v.body.score === 'number' ? (v.body.score as number) : -1;
    };
    const measure = async (attacker: string, one: (i: number) => Promise<string>, note?: string) => {
      const scores: number[] = [];
      let cpu = 0;
      for (let i = 0; i < n; i++) {
        const before = cpuNow();
        const token = await one(i);
        cpu += cpuNow() - before;
        scores.push(await score(attacker, token));
      }
      rows.push({ attacker, tokens: n, cpu: cpu / n, scores, note });
    };

    const http = (attacker: string, answer: LayoutAnswer) =>
      measure(attacker, () =>
        httpBotToken(server.url, { sitekey: sites[attacker].sitekey, origin: pages.origin, answer }),
      );
    await http('work only', () => undefined);
    await http('layout library', (p) => (p ? paragraphWithTaffy(p).join(',') : undefined));
    await http('inline layout library', answerWith(dropflowBot));
    oracleBrowser = await launchChromium();
    const oracle = await openProbeOracle(oracleBrowser);
    await http('layout oracle', async (p) => (p ? (await oracle.measure([p]))[0].join(',') : undefined));
    await oracle.close();
    await oracleBrowser.close();
    oracleBrowser = undefined;

    for (const kind of ['as-launched', 'stealth'] as BotKind[]) {
      const bot = await launchBot(kind);
      try {
        let page = 0;
        await bot.page.route(`${server.url}/api/**`, (route) =>
          route.continue({
            headers: { ...route.request().headers(), 'x-forwarded-for': `198.19.${page}.${randomInt(1, 255)}` },
          }),
        );
        await measure(kind, async (i) => {
          page = i + 1;
          await bot.visit(pages.url('invisible', sites[kind].sitekey, `bench-${kind}`));
          await bot.page.getByRole('button', { name: 'Sign in' }).click({ timeout: 10_000 });
          return waitUntil(() => nthToken(pages, `bench-${kind}`, i), 60_000, `${kind}'s token`);
        });
      } finally {
        await bot.close();
      }
    }

    if (personMissing) {
      rows.push({ attacker: 'person', tokens: 0, cpu: NaN, scores: [], note: 'no Xvfb/xdotool/Chromium here' });
    } else {
      const id = 'bench-person';
      const url = pages.url('invisible', sites.person.sitekey, id);
      const loads = () => pages.reports.filter((r) => r.kind === 'geometry' && r.page === id).length;
      const before = cpuNow();
      const p = await startPerson(url);
      const start = cpuNow() - before; // the browser's start, shared by its tokens
      try {
        await measure(
          'person',
          async (i) => {
            // Each token on a fresh page load: the first from the start, then F5.
            if (i > 0) await p.key('F5');
            await p.waitFor(() => (loads() > i ? true : undefined), 30_000, 'the page to load');
            await p.moveAlong([
              [260 + 40 * i, 300],
              [420, 360 + 10 * i],
            ]);
            for (let t = 0; t < 2; t++) await p.key('Tab');
            await p.key('Return');
            return p.waitFor(() => nthToken(pages, id, i), 60_000, "the person's token");
          },
          `plus ${start.toFixed(2)} CPU-s to start the browser`,
        );
      } finally {
        await p.close();
      }
    }

    console.log(`\nAttackers, ${n} v3 tokens each (CPU-s: this process + its child processes, per token)`);
    console.log(`| attacker | CPU-s per token | scores | target |`);
    console.log(`|---|---|---|---|`);
    const targets: Record<string, string> = {
      'work only': '<= 0.3',
      'layout library': '<= 0.3',
      'inline layout library': '',
      'layout oracle': '',
      'as-launched': '<= 0.1',
      stealth: '<= 0.5',
      person: '>= 0.7',
    };
    for (const r of rows) {
      const max = Math.max(...r.scores);
      const min = Math.min(...r.scores);
      const t = targets[r.attacker];
      const met = !r.scores.length
        ? ''
        : t.startsWith('<=')
          ? max <= Number(t.slice(3))
            ? ' met'
            : ' NOT met'
          : t.startsWith('>=')
            ? min >= Number(t.slice(3))
              ? ' met'
              : ' NOT met'
            : '';
      console.log(
        `| ${r.attacker} | ${Number.isNaN(r.cpu) ? '-' : r.cpu.toFixed(2)}${r.note ? ` (${r.note})` : ''} | ${r.scores.join(', ')} | ${t}${met} |`,
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
  await main(Number(process.argv[2] ?? 5));
}
