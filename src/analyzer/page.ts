/**
 * The parsed page every check reads: the HTML is parsed once with cheerio, and derived
 * facts (visible text, word list, element count) are computed once, on first use. The
 * libraries that only the check workers load (cheerio, tldts, robots-parser) are reached
 * through this module, so that the check modules themselves stay light enough for the main
 * thread to read their identity and texts (checks/registry.ts).
 */
import { load, type CheerioAPI } from 'cheerio';
import { isTag, isText, type AnyNode, type Element } from 'domhandler';
import { getDomain } from 'tldts';
import { robotsParser } from './robots-parser.ts';
import type { AuxiliaryResults } from './auxiliary-results.ts';
import { defaultThresholds, defaultUserAgent, robotsAgentToken, type Thresholds } from './thresholds.ts';

/** What a page context is built from; only `url` and `html` are required (tests pass snippets). */
export interface PageInput {
  /** Final URL of the page. */
  url: string | URL;
  /** URL the analysis started from; defaults to `url`. */
  requestedUrl?: string | URL;
  html: string;
  status?: number;
  /** Response headers, lowercased names. */
  headers?: Record<string, string>;
  httpVersion?: string;
  timings?: { ttfbMs: number; totalMs: number };
  /** Compressed bytes received; defaults to the UTF-8 size of `html`. */
  transferredBytes?: number;
  /** Decoded bytes; defaults to the UTF-8 size of `html`. */
  decodedBytes?: number;
  /** Auxiliary fetches; checks that need them fail when absent. */
  aux?: AuxiliaryResults;
  thresholds?: Thresholds;
  userAgent?: string;
}

/** Elements whose text is not visible content. */
const invisible = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'object']);

/** The page as checks see it. */
export class PageContext {
  readonly url: URL;
  readonly requestedUrl: URL;
  readonly html: string;
  readonly $: CheerioAPI;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly httpVersion: string;
  readonly timings: { ttfbMs: number; totalMs: number };
  readonly transferredBytes: number;
  readonly decodedBytes: number;
  /** Auxiliary fetches; set after construction when they finish later than the parse. */
  aux?: AuxiliaryResults;
  readonly thresholds: Thresholds;
  readonly userAgent: string;
  #text?: string;
  #words?: string[];
  #elementCount = 0;
  #titles: Element[] = [];

  constructor(input: PageInput) {
    this.url = new URL(input.url);
    this.requestedUrl = new URL(input.requestedUrl ?? input.url);
    this.html = input.html;
    this.$ = load(input.html);
    this.status = input.status ?? 200;
    this.headers = input.headers ?? {};
    this.httpVersion = input.httpVersion ?? '1.1';
    this.timings = input.timings ?? { ttfbMs: 0, totalMs: 0 };
    const size = Buffer.byteLength(input.html);
    this.transferredBytes = input.transferredBytes ?? size;
    this.decodedBytes = input.decodedBytes ?? size;
    this.aux = input.aux;
    this.thresholds = input.thresholds ?? { ...defaultThresholds };
    this.userAgent = input.userAgent ?? defaultUserAgent;
  }

  /** The robots.txt agent token of our User-Agent. */
  get robotsAgent(): string {
    return robotsAgentToken(this.userAgent);
  }

  /** A response header (lowercase name), or undefined. */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  /** Visible text of the document, whitespace collapsed. */
  get text(): string {
    if (this.#text === undefined) this.#walk();
    return this.#text!;
  }

  /** Number of element nodes in the document (implied html/head/body included). */
  get elementCount(): number {
    if (this.#text === undefined) this.#walk();
    return this.#elementCount;
  }

  /** The document's <title> elements (not SVG titles), in document order. */
  get titleElements(): Element[] {
    if (this.#text === undefined) this.#walk();
    return this.#titles;
  }

  /** Words of the visible text, lowercased. */
  get words(): string[] {
    this.#words ??= this.text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
    return this.#words;
  }

  /** Resolve `href` against the page URL; undefined if it is not a valid URL. */
  resolve(href: string | undefined): URL | undefined {
    if (href === undefined) return undefined;
    try {
      return new URL(href.trim(), this.url);
    } catch {
      return undefined;
    }
  }

  /** The registrable domain of `hostname` by the public suffix list (tldts), or undefined. */
  registrableDomain(hostname: string): string | undefined {
    return getDomain(hostname) ?? undefined;
  }

  /** robots.txt `text`, fetched from `url`, parsed (robots-parser). */
  parseRobots(url: string, text: string): ReturnType<typeof robotsParser> {
    return robotsParser(url, text);
  }

  /** A short description of an element for check details: `<img src="a.png">`. */
  describe(el: Element, attr?: string): string {
    const value = attr ? el.attribs[attr] : undefined;
    if (value === undefined) return `<${el.tagName}>`;
    const shown = value.length > 120 ? `${value.slice(0, 117)}...` : value;
    return `<${el.tagName} ${attr}="${shown}">`;
  }

  /**
   * One pass over the tree (iterative, so any depth is linear): element count, visible text
   * and the document's titles.
   */
  #walk(): void {
    const parts: string[] = [];
    let count = 0;
    const titles: Element[] = [];
    const stack: Array<{ node: AnyNode; hidden: boolean; svg: boolean }> = [];
    const roots = this.$.root()[0].children;
    for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i], hidden: false, svg: false });
    while (stack.length) {
      const { node, hidden, svg } = stack.pop()!;
      if (isText(node)) {
        if (!hidden) parts.push(node.data);
        continue;
      }
      if (!isTag(node)) continue; // tag, script or style
      count++;
      const el = node;
      if (el.tagName === 'title' && !svg) titles.push(el);
      const childHidden = hidden || invisible.has(el.tagName);
      const childSvg = svg || el.tagName === 'svg';
      for (let i = el.children.length - 1; i >= 0; i--)
        stack.push({ node: el.children[i], hidden: childHidden, svg: childSvg });
    }
    this.#elementCount = count;
    this.#titles = titles;
    this.#text = parts.join(' ').replace(/\s+/g, ' ').trim();
  }
}
