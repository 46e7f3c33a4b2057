/**
 * The worker side of the check pool: parse one page and run every check over it. Runs in a
 * piscina worker thread, so a slow page blocks only this thread, which the pool terminates
 * when the analysis's budget runs out.
 */
import type { MessagePort } from 'node:worker_threads';
import type { AuxiliaryResults } from './auxiliary-results.ts';
import type { ResultsByCategory } from './checks/types.ts';
import type { Thresholds } from './thresholds.ts';
import { readLinks, type LinkResult, type LinkTask } from './links.ts';
import { PageContext } from './page.ts';
import { runChecks } from './run-checks.ts';

/** A page as it crosses to a worker: only structured-clonable values (URLs as strings). */
export interface CheckInput {
  url: string;
  requestedUrl: string;
  html: string;
  status: number;
  headers: Record<string, string>;
  httpVersion: string;
  timings: { ttfbMs: number; totalMs: number };
  transferredBytes: number;
  decodedBytes: number;
  aux?: AuxiliaryResults;
  thresholds: Thresholds;
  userAgent: string;
}

/** One task: the page, and a port told when the task starts (the budget runs from then). */
export interface CheckTask {
  page: CheckInput;
  started?: MessagePort;
}

/** The checks' results by category. */
export type CheckResults = ResultsByCategory;

/** Parse the page and run every check; the same function runs in-thread when no pool is given. */
export function runPageChecks(input: CheckInput): CheckResults {
  return runChecks(new PageContext(input));
}

/** The piscina handler. */
export default function checkTask(task: CheckTask): CheckResults {
  if (task.started) {
    task.started.postMessage('started');
    task.started.close();
  }
  return runPageChecks(task.page);
}

/** The piscina handler named `links`: a crawl's read of a page's links or a sitemap ({@link readLinks}). */
export function links(task: { links: LinkTask; started?: MessagePort }): LinkResult {
  if (task.started) {
    task.started.postMessage('started');
    task.started.close();
  }
  return readLinks(task.links);
}
