/**
 * axe-core in a rendered page, once the page is quiet (the moment the lab measurements are
 * taken), as Lighthouse 12 runs it: in an isolated world of the top document (the page's
 * scripts cannot see or change axe, its CSP does not apply: the source goes through the
 * DevTools protocol, not a <script> element), with Lighthouse's rule options
 * (checks/accessibility-rules.ts), and the scroll position put back afterwards.
 *
 * What comes back from the page is untrusted (selectors and snippets are the page's markup):
 * {@link sanitizeAxe} keeps known rule ids only, bounds every string and at most
 * {@link maxAccessibilityNodes} nodes per rule. A page whose axe run fails or takes longer than
 * its time is reported without the category ({@link AxeRun.error}), never failed for it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import {
  accessibilityRules,
  axeRunOptions,
  maxAccessibilityNodes,
  type AccessibilityNode,
  type AxeImpact,
} from '../checks/accessibility-rules.ts';

/** One rule's findings (violations or needs-review nodes). */
export interface AxeFinding {
  rule: string;
  impact: AxeImpact | null;
  /** Nodes found (all of them), of which {@link nodes} lists the first few. */
  count: number;
  nodes: AccessibilityNode[];
}

/** What axe said about a page, limited to the rules we report. */
export interface AxeRun {
  /** axe-core's version. */
  version: string;
  violations: AxeFinding[];
  /** axe's "incomplete": nodes it could not decide alone (reported as needs review). */
  incomplete: AxeFinding[];
  /** Rules that found nothing to test on the page. */
  inapplicable: string[];
  /** Wall time of injection and run, ms. */
  elapsedMs: number;
  /** Set when axe could not run (then the lists are empty). */
  error?: string;
}

const require = createRequire(import.meta.url);
let source: string | undefined;

/** axe-core's minified browser bundle (as Lighthouse injects it: half the unminified one's parse), read once. */
function axeSource(): string {
  return (source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
}

const ruleIds = new Set<string>(accessibilityRules.map((r) => r.axe));
const impacts = new Set(['minor', 'moderate', 'serious', 'critical']);

/**
 * Evaluated in the isolated world after axe's source (a string: a compiled function could carry
 * helpers the page does not have): runs axe over the document and returns plain data only (no
 * element references cross), the scroll put back as it was.
 */
const inPage = (options: unknown, maxNodes: number): string => `(() => {
  const maxNodes = ${maxNodes};
  const x = window.scrollX;
  const y = window.scrollY;
  const slim = (r) => ({
    rule: r.id,
    impact: r.impact || null,
    count: r.nodes.length,
    nodes: r.nodes.slice(0, maxNodes).map((n) => ({
      selector: n.target.map(String).join(' '),
      snippet: n.html,
      why: n.failureSummary || '',
    })),
  });
  return window.axe
    .run(document, ${JSON.stringify(options)})
    .then((r) => ({
      version: r.testEngine.version,
      violations: r.violations.map(slim),
      incomplete: r.incomplete.map(slim),
      inapplicable: r.inapplicable.map((i) => i.id),
    }))
    .finally(() => window.scrollTo(x, y));
})()`;

function str(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

function findings(value: unknown): AxeFinding[] {
  if (!Array.isArray(value)) return [];
  const out: AxeFinding[] = [];
  for (const item of value.slice(0, 200)) {
    const f = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    const rule = str(f['rule'], 100);
    if (!ruleIds.has(rule)) continue;
    const nodes = Array.isArray(f['nodes']) ? f['nodes'].slice(0, maxAccessibilityNodes) : [];
    const impact = impacts.has(f['impact'] as string) ? (f['impact'] as AxeImpact) : null;
    const count = typeof f['count'] === 'number' && Number.isFinite(f['count']) ? Math.max(0, f['count']) : 0;
    out.push({
      rule,
      impact,
      count: Math.min(Math.max(count, nodes.length), 1e6),
      nodes: nodes.map((n) => {
        const node = (n && typeof n === 'object' ? n : {}) as Record<string, unknown>;
        return { selector: str(node['selector'], 300), snippet: str(node['snippet'], 300), why: str(node['why'], 600) };
      }),
    });
  }
  return out;
}

/** Validate what the page returned: known rules, bounded strings and lists. */
export function sanitizeAxe(raw: unknown, elapsedMs: number): AxeRun {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    version: str(r['version'], 20),
    violations: findings(r['violations']),
    incomplete: findings(r['incomplete']),
    inapplicable: (Array.isArray(r['inapplicable']) ? r['inapplicable'] : [])
      .map((id) => str(id, 100))
      .filter((id) => ruleIds.has(id)),
    elapsedMs,
  };
}

/**
 * Run axe in an isolated world of `page`'s top document, giving up after `timeoutMs`.
 * Resolves either way: a failure is {@link AxeRun.error}.
 */
export async function runAxe(page: Page, timeoutMs: number): Promise<AxeRun> {
  const started = performance.now();
  const failed = (error: string): AxeRun => ({
    version: '',
    violations: [],
    incomplete: [],
    inapplicable: [],
    elapsedMs: performance.now() - started,
    error,
  });
  if (timeoutMs <= 0) return failed('No time was left in the render for the accessibility checks.');
  let timer: NodeJS.Timeout | undefined;
  const session = await page.context().newCDPSession(page);
  try {
    const run = (async () => {
      const { frameTree } = await session.send('Page.getFrameTree');
      const { executionContextId: contextId } = await session.send('Page.createIsolatedWorld', {
        frameId: frameTree.frame.id,
        worldName: 'auditcaptcha-accessibility',
      });
      const injected = await session.send('Runtime.evaluate', { expression: axeSource(), contextId, silent: true });
      if (injected.exceptionDetails) throw new Error('axe-core could not be loaded into the page.');
      const result = await session.send('Runtime.evaluate', {
        expression: inPage(axeRunOptions, maxAccessibilityNodes),
        contextId,
        awaitPromise: true,
        returnByValue: true,
        silent: true,
      });
      if (result.exceptionDetails) {
        throw new Error(`axe-core failed: ${str(result.exceptionDetails.exception?.description, 200) || 'error'}`);
      }
      return sanitizeAxe(result.result.value, performance.now() - started);
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`The accessibility checks took longer than ${timeoutMs} ms.`)),
        timeoutMs,
      );
    });
    return await Promise.race([run, timeout]);
  } catch (err) {
    return failed(err instanceof Error ? err.message.split('\n')[0].slice(0, 300) : 'axe-core could not run.');
  } finally {
    clearTimeout(timer);
    await session.detach().catch(() => undefined);
  }
}
