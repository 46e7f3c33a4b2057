import type { CrawlerVerifier, SearchCrawler } from './crawlers.ts';
import { isNavigation } from './forwarded.ts';
import type { GatewaySite } from './registry.ts';
import { evaluate, isAllowByClaim, type GatewayRequest } from './rules.ts';
import { DEFAULT_CLAIM_BUDGET } from './pace.ts';
import type { GatewaySettings } from '../entities/site.entity.ts';
import { canonicalTarget } from './target.ts';

/** A kind of visitor whose treatment a site owner wants to know. */
export interface Persona {
  name: string;
  /** What the owner would want for it: `pass` (served) or `refused` (challenged or denied). */
  expect: 'pass' | 'refused';
  method: string;
  path: (feedPath: string, pagePath: string) => string;
  headers: Record<string, string>;
  /** Treat a search-crawler claim as confirmed by DNS (the simulation asks no name server). */
  verifiedCrawler?: boolean;
  /** Carries a valid clearance cookie. */
  cleared?: boolean;
}

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const NAV = { accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate' };

/** The visitors a gateway report runs: who should get in, and who should not. */
export const PERSONAS: Persona[] = [
  {
    name: 'verified Googlebot',
    expect: 'pass',
    method: 'GET',
    path: (_f, page) => page,
    headers: {
      'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      accept: 'text/html',
    },
    verifiedCrawler: true,
  },
  {
    name: 'Googlebot impostor',
    expect: 'refused',
    method: 'GET',
    path: (_f, page) => page,
    headers: {
      'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      accept: 'text/html',
    },
  },
  {
    name: 'feed reader',
    expect: 'pass',
    method: 'GET',
    path: (feed) => feed,
    headers: { 'user-agent': 'FreshRSS/1.24 (Linux; https://freshrss.org)', accept: 'application/rss+xml, */*' },
  },
  {
    name: 'link preview',
    expect: 'pass',
    method: 'GET',
    path: (_f, page) => page,
    headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', accept: '*/*' },
  },
  {
    name: 'person after the check',
    expect: 'pass',
    method: 'GET',
    path: (_f, page) => page,
    headers: { 'user-agent': CHROME, ...NAV },
    cleared: true,
  },
  {
    name: 'script',
    expect: 'refused',
    method: 'GET',
    path: (_f, page) => page,
    headers: { 'user-agent': 'python-requests/2.32.3', accept: '*/*' },
  },
  {
    name: 'AI crawler',
    expect: 'refused',
    method: 'GET',
    path: (_f, page) => page,
    headers: {
      'user-agent':
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      accept: '*/*',
    },
  },
];

/** One persona's result: what it gets, the deciding rule, and whether that is what the owner wants. */
export interface PersonaResult {
  persona: string;
  outcome: 'pass' | 'challenge' | 'refuse' | 'deny';
  rule: string;
  ok: boolean;
}

/** The readings the gateway would decide on for `path` (as given when it cannot be normalised: the report shows the rules). */
function readingsOf(path: string): readonly string[] {
  const t = canonicalTarget(path);
  return t.ok ? t.readings : [path];
}

/** A crawler verifier that trusts (or refuses) every claim without asking DNS. */
function assumed(verified: boolean): CrawlerVerifier {
  return { verify: (_c: SearchCrawler, _ip: string) => Promise.resolve(verified) } as unknown as CrawlerVerifier;
}

/**
 * What each persona would get from the site's current rules on `pagePath` (and the feed
 * persona on `feedPath`), from the documentation address 192.0.2.1, naming the deciding rule.
 * The search crawler's DNS check is assumed to confirm for "verified Googlebot" and to fail
 * for the impostor, so the report shows the rules, not the network.
 */
export async function simulate(site: GatewaySite, pagePath: string, feedPath: string): Promise<PersonaResult[]> {
  const out: PersonaResult[] = [];
  for (const p of PERSONAS) {
    const req: GatewayRequest = {
      method: p.method,
      readings: readingsOf(p.path(feedPath, pagePath)),
      headers: p.headers,
      ip: '192.0.2.1',
    };
    const v = await evaluate(
      site.rules,
      site.settings.thresholds,
      site.settings.default_action,
      req,
      assumed(p.verifiedCrawler === true),
    );
    const outcome: PersonaResult['outcome'] =
      v.action === 'allow'
        ? 'pass'
        : v.action === 'deny'
          ? 'deny'
          : p.cleared
            ? 'pass'
            : isNavigation(p.method, p.headers)
              ? 'challenge'
              : 'refuse';
    out.push({
      persona: p.name,
      outcome,
      rule: outcome === 'pass' && p.cleared && v.action !== 'allow' ? 'clearance' : v.rule,
      ok: (outcome === 'pass') === (p.expect === 'pass'),
    });
  }
  return out;
}

/**
 * The report's warnings: each allow rule that rests on what the client says alone
 * (rules.ts `isAllowByClaim`) and covers the whole site (no path condition), with the budget
 * that is all that stands between it and any client willing to say the same.
 */
export function claimWarnings(settings: GatewaySettings): string[] {
  const budget = settings.claim_budget ?? DEFAULT_CLAIM_BUDGET;
  return settings.rules.flatMap((rule, i) =>
    isAllowByClaim(rule) && rule.path === undefined
      ? [
          `Rule "${rule.name ?? `rule ${i + 1}`}" lets any client that claims to match it onto every page, ` +
            `up to ${budget.per_minute} pages a minute and ${budget.per_day} a day per network; ` +
            'give it a path, a network, or put it after your deny rules.',
        ]
      : [],
  );
}
