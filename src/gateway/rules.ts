import { AI_CRAWLER_TOKENS } from './ai-crawlers.ts';
import { claimedCrawler, type CrawlerVerifier } from './crawlers.ts';
import { inNetworks, parseAddress, parseCidr, type Cidr } from './networks.ts';
import { anyTokenMatcher, compilePathPattern, compileSafePattern } from './patterns.ts';
import type { GatewayRule, GatewaySettings, RuleAction, RulePreset } from '../entities/site.entity.ts';

/** What a rule sees of a request: the original one, as the proxy forwarded it. */
export interface GatewayRequest {
  method: string;
  /**
   * The canonical path's readings (target.ts): the path, and without `;` parameters where it
   * has any. A path condition of an allow rule must hold for each; of any other, for one.
   */
  readings: readonly string[];
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The client's address (the trusted proxy's X-Forwarded-For), plain form. */
  ip: string;
}

/** Feed paths the `feeds` preset lets through (docs/gateway.md). */
const FEED_PATHS = [
  '/feed',
  '/feed/',
  '/rss',
  '/rss/',
  '/atom',
  '/atom/',
  '/feed.json',
  '/index.xml',
  '/rss.xml',
  '/atom.xml',
  '/feed.xml',
];
const FEED_SUFFIXES = [
  '.rss',
  '.atom',
  '/feed',
  '/feed/',
  '/rss.xml',
  '/atom.xml',
  '/feed.xml',
  '/feed.json',
  '/index.xml',
];

/** Link-preview fetchers (chat apps and social networks unfurling a shared link), by User-Agent token. */
export const LINK_PREVIEW_TOKENS = [
  'facebookexternalhit',
  'facebookcatalog',
  'twitterbot',
  'slackbot-linkexpanding',
  'slack-imgproxy',
  'discordbot',
  'telegrambot',
  'whatsapp',
  'linkedinbot',
  'skypeuripreview',
  'redditbot',
  'mastodon',
  'pinterestbot',
  'embedly',
  'iframely',
  'vkshare',
  'bluesky cardyb',
  'signal-preview',
];

const isAiCrawler = anyTokenMatcher(AI_CRAWLER_TOKENS.map((t) => t.toLowerCase()));
const isLinkPreview = anyTokenMatcher(LINK_PREVIEW_TOKENS);

type Matcher = (req: GatewayRequest, lowerUa: string, dns: CrawlerVerifier) => boolean | Promise<boolean>;

/** A path test over the request's readings: all of them for an allow (the strict reading lets less through), any for the rest. */
function onReadings(action: RuleAction, test: (path: string) => boolean): (req: GatewayRequest) => boolean {
  return action === 'allow' ? (req) => req.readings.every(test) : (req) => req.readings.some(test);
}

function isFeedPath(path: string): boolean {
  const p = path.toLowerCase();
  return FEED_PATHS.includes(p) || FEED_SUFFIXES.some((s) => p.endsWith(s));
}

function presetMatcher(preset: RulePreset, action: RuleAction): Matcher {
  switch (preset) {
    case 'ai-crawlers':
      return (_req, ua) => isAiCrawler(ua);
    case 'link-previews':
      return (req, ua) => (req.method === 'GET' || req.method === 'HEAD') && isLinkPreview(ua);
    case 'feeds': {
      const feed = onReadings(action, isFeedPath);
      return (req) => (req.method === 'GET' || req.method === 'HEAD') && feed(req);
    }
    case 'search-crawlers':
      return (req, ua, dns) => {
        const crawler = claimedCrawler(ua);
        return crawler ? dns.verify(crawler, req.ip) : false;
      };
  }
}

/**
 * Whether an allow rule rests on the client's word alone: it names a User-Agent or header
 * pattern, or the link-preview or AI-crawler preset, and neither a network nor the DNS-checked
 * search-crawler preset. A client can say anything, so such a rule lets a network through at
 * a budget (pace.ts), not without end.
 */
export function isAllowByClaim(rule: GatewayRule): boolean {
  if (rule.action !== 'allow' || rule.networks?.length || rule.preset === 'search-crawlers') return false;
  return (
    rule.user_agent !== undefined ||
    Object.keys(rule.headers ?? {}).length > 0 ||
    rule.preset === 'link-previews' ||
    rule.preset === 'ai-crawlers'
  );
}

/** A rule ready to run: its conditions compiled once, when the site's settings are loaded. */
export interface CompiledRule {
  name: string;
  action: RuleAction;
  weight: number;
  /** An allow that rests on what the client says alone (pace.ts counts what it lets through). */
  byClaim: boolean;
  matches(req: GatewayRequest, lowerUa: string, dns: CrawlerVerifier): boolean | Promise<boolean>;
}

/** Whether `checks` from `from` on all hold, awaiting only those that ask DNS. */
async function allHold(
  checks: readonly Matcher[],
  from: number,
  req: GatewayRequest,
  lowerUa: string,
  dns: CrawlerVerifier,
): Promise<boolean> {
  for (let i = from; i < checks.length; i++) if (!(await checks[i](req, lowerUa, dns))) return false;
  return true;
}

export function compileRule(rule: GatewayRule, index: number): CompiledRule {
  const checks: Matcher[] = [];
  if (rule.methods?.length) {
    const methods = new Set(rule.methods);
    checks.push((req) => methods.has(req.method));
  }
  if (rule.path !== undefined) {
    checks.push(onReadings(rule.action, compilePathPattern(rule.path)));
  }
  if (rule.networks?.length) {
    const blocks = rule.networks.map(parseCidr).filter((b): b is Cidr => b !== null);
    checks.push((req) => inNetworks(parseAddress(req.ip), blocks));
  }
  if (rule.user_agent !== undefined) {
    const ua = compileSafePattern(rule.user_agent);
    checks.push((req) => ua(req.headers['user-agent'] ?? ''));
  }
  for (const [name, pattern] of Object.entries(rule.headers ?? {})) {
    const value = pattern === '' ? () => true : compileSafePattern(pattern);
    checks.push((req) => {
      const v = req.headers[name];
      return v !== undefined && value(v);
    });
  }
  // The preset last: the search-crawler preset may ask DNS, so cheaper conditions go first.
  if (rule.preset) checks.push(presetMatcher(rule.preset, rule.action));
  return {
    name: rule.name ?? `rule ${index + 1}`,
    action: rule.action,
    weight: rule.weight ?? 0,
    byClaim: isAllowByClaim(rule),
    // A promise only where a check asks DNS: the other checks answer at once, with no microtask.
    matches(req, lowerUa, dns) {
      for (let i = 0; i < checks.length; i++) {
        const held = checks[i](req, lowerUa, dns);
        if (held === false) return false;
        if (held !== true) return held.then((ok) => ok && allHold(checks, i + 1, req, lowerUa, dns));
      }
      return true;
    },
  };
}

/** What the rules decide about one request, and which rule decided. */
export interface RuleVerdict {
  action: 'allow' | 'deny' | 'challenge';
  /** The deciding rule's name; for a threshold, `score`; with no rule, `default`. */
  rule: string;
  score: number;
  /** The deciding rule is an allow by the client's word ({@link isAllowByClaim}). */
  byClaim?: boolean;
}

/**
 * Runs the rules in order: the first matching allow, deny or challenge rule decides; weigh
 * rules met on the way add their weight. With no deciding rule the score decides against the
 * thresholds (deny, then challenge); below them the site's default action applies
 * (`challenge` unless the site chose `allow`). A visitor with a clearance passes a challenge.
 */
export async function evaluate(
  rules: readonly CompiledRule[],
  thresholds: GatewaySettings['thresholds'],
  defaultAction: GatewaySettings['default_action'],
  req: GatewayRequest,
  dns: CrawlerVerifier,
): Promise<RuleVerdict> {
  const lowerUa = (req.headers['user-agent'] ?? '').toLowerCase();
  let score = 0;
  let weighed: string | undefined;
  for (const rule of rules) {
    const held = rule.matches(req, lowerUa, dns);
    if (!(held === true || (held !== false && (await held)))) continue;
    if (rule.action === 'weigh') {
      score += rule.weight;
      weighed = rule.name;
      continue;
    }
    return { action: rule.action, rule: rule.name, score, byClaim: rule.byClaim };
  }
  if (score >= thresholds.deny) return { action: 'deny', rule: weighed ?? 'score', score };
  if (score >= thresholds.challenge) return { action: 'challenge', rule: weighed ?? 'score', score };
  return { action: defaultAction, rule: 'default', score };
}
