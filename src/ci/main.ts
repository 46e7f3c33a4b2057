/**
 * `auditcaptcha assert`: budgets and regressions for CI, against a running service.
 *
 *   auditcaptcha assert --server URL --key KEY [--budget FILE] [--runs N] [--baseline ID|last]
 *                       [--render 0|1] [--junit FILE] [--markdown FILE] (URL... | --audit ID)
 *
 * Each URL is measured `--runs` times as a report (rendered unless `--render 0`), then the
 * budget is asserted on it and, with `--baseline`, its runs are tested against the baseline
 * report's. `--audit ID` asserts the pages of the audit's latest completed run instead, with
 * the audit's own budget unless `--budget` is given, and its regressions against the audit's
 * baseline run. Exit 0: no error assertion failed and nothing regressed; 1: one did; 2: a usage
 * or service error. Progress goes to standard error, nothing else to standard output.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createClient, ServiceError, type Client } from './client.ts';
import { toJUnit } from './junit.ts';
import { toMarkdown, type Fixes } from './markdown.ts';
import { exitCodeOf, failsBuild, type RegressionLine, type UrlOutcome } from './outcome.ts';
import type { AuditRead, AuditRuns, CheckList, CreatedReport, ReportAssertion } from './api.ts';

const usage = `Usage: auditcaptcha assert [options] (URL... | --audit ID)

Options:
  --server URL       the service (or AUDITCAPTCHA_SERVER)
  --key KEY          an API key (or AUDITCAPTCHA_KEY)
  --budget FILE      a lighthouserc JSON (its ci.assert), its assert section, or {"budgets": [...]}
  --runs N           measure each URL N times (default 1)
  --baseline ID|last test the runs against a report id, or the last report of the URL
  --render 0|1       render in Chromium (default 1)
  --audit ID         assert the pages of an audit's latest completed run
  --junit FILE       write JUnit XML (one test case per assertion per URL)
  --markdown FILE    write a Markdown summary (failures first, with their fixes)
  --timeout SECONDS  time for each call to the service (default 300)

Exit: 0 budget met, 1 an error assertion failed or a metric regressed, 2 usage or service error.
`;

class UsageError extends Error {}

interface Options {
  client: Client;
  budget?: unknown;
  runs?: number;
  baseline?: number | 'last';
  render: boolean;
  audit?: number;
  urls: string[];
  junit?: string;
  markdown?: string;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--${name} must be a whole number from 1.`);
  return Number(text);
}

async function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Promise<Options> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        server: { type: 'string' },
        key: { type: 'string' },
        budget: { type: 'string' },
        runs: { type: 'string' },
        baseline: { type: 'string' },
        render: { type: 'string' },
        audit: { type: 'string' },
        junit: { type: 'string' },
        markdown: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values: v, positionals } = parsed;
  const [command, ...urls] = positionals;
  if (command !== 'assert') throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.');
  const server = v.server ?? env['AUDITCAPTCHA_SERVER'];
  const key = v.key ?? env['AUDITCAPTCHA_KEY'];
  if (!server) throw new UsageError('--server (or AUDITCAPTCHA_SERVER) is required.');
  if (!key) throw new UsageError('--key (or AUDITCAPTCHA_KEY) is required.');
  if (!/^https?:\/\//.test(server)) throw new UsageError('--server must be an http(s) address.');
  const audit = positiveInt('audit', v.audit);
  if (audit !== undefined && urls.length) throw new UsageError('Give URLs or --audit, not both.');
  if (audit === undefined && urls.length === 0) throw new UsageError('Give at least one URL, or --audit ID.');
  for (const u of urls) if (!URL.canParse(u)) throw new UsageError(`"${u}" is not a URL.`);
  let baseline: Options['baseline'];
  if (v.baseline !== undefined) baseline = v.baseline === 'last' ? 'last' : positiveInt('baseline', v.baseline);
  if (audit !== undefined && typeof baseline === 'number') {
    throw new UsageError(
      'An audit is tested against its own baseline run: set it with PUT /api/v1/audits/{id}/budget (baseline_run).',
    );
  }
  if (v.render !== undefined && v.render !== '0' && v.render !== '1') throw new UsageError('--render is 0 or 1.');
  let budget: unknown;
  if (v.budget) {
    let text: string;
    try {
      text = await readFile(v.budget, 'utf8');
    } catch (err) {
      throw new UsageError(`Cannot read --budget ${v.budget}: ${(err as Error).message}`);
    }
    try {
      budget = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`--budget ${v.budget} is not JSON: ${(err as Error).message}`);
    }
  }
  const timeout = positiveInt('timeout', v.timeout) ?? 300;
  return {
    client: createClient(server, key, timeout * 1000),
    budget,
    runs: positiveInt('runs', v.runs),
    baseline,
    render: v.render !== '0',
    audit,
    urls,
    junit: v.junit,
    markdown: v.markdown,
  };
}

async function assertUrl(o: Options, url: string): Promise<UrlOutcome> {
  progress(`measuring ${url}${o.runs && o.runs > 1 ? ` (${o.runs} runs)` : ''}...`);
  const created = await o.client.call<CreatedReport>('POST', '/api/v1/reports', {
    url,
    render: o.render ? '1' : '0',
    ...(o.runs ? { runs: String(o.runs) } : {}),
  });
  const id = created.data.id;
  const { data } = await o.client.call<ReportAssertion>('POST', `/api/v1/reports/${id}/assert`, {
    ...(o.budget !== undefined ? { budget: o.budget } : {}),
    ...(o.baseline !== undefined ? { baseline: o.baseline } : {}),
  });
  return {
    url: data.url,
    report_id: id,
    assertions: data.assertions,
    uncovered: data.uncovered,
    regression: data.regression
      ? { baseline: `report ${data.regression.baseline_report_id}`, metrics: data.regression.metrics }
      : null,
  };
}

/** An audit's stored budget groups in a form the assert endpoint takes. */
function budgetOfAudit(groups: AuditRead['data']['budget']): unknown {
  if (groups.length === 0) return undefined;
  if (groups.some((g) => g.url_pattern)) {
    return {
      assertMatrix: groups.map((g) => ({
        ...(g.url_pattern ? { matchingUrlPattern: g.url_pattern } : {}),
        ...(g.preset ? { preset: g.preset } : {}),
        ...(g.aggregation_method ? { aggregationMethod: g.aggregation_method } : {}),
        assertions: g.assertions,
      })),
    };
  }
  return {
    budgets: groups.map((g) => ({
      ...(g.path ? { path: g.path } : {}),
      ...(g.preset ? { preset: g.preset } : {}),
      ...(g.aggregation_method ? { aggregationMethod: g.aggregation_method } : {}),
      assertions: g.assertions,
    })),
  };
}

async function assertAudit(o: Options, id: number): Promise<UrlOutcome[]> {
  const { data: audit } = await o.client.call<AuditRead>('GET', `/api/v1/audits/${id}`);
  const runs = await o.client.call<AuditRuns>('GET', `/api/v1/audits/${id}/runs?per_page=10`);
  const completed = runs.data.find((r) => r.status === 'completed');
  if (!completed) throw new ServiceError(`Audit ${id} has no completed run yet.`);
  if (completed.id !== audit.run_id)
    throw new ServiceError(
      `Audit ${id}'s latest run (${audit.run_id}) is ${audit.status}; try again when it has completed.`,
    );
  const budget = o.budget ?? budgetOfAudit(audit.budget);
  const regressed = new Map<string, RegressionLine[]>();
  for (const m of completed.summary?.regressions?.metrics ?? []) {
    for (const p of m.pages)
      regressed.set(p.url, [...(regressed.get(p.url) ?? []), { metric: m.metric, ...p, regressed: true }]);
  }
  const baselineRun = completed.summary?.regressions?.baseline_run;
  const out: UrlOutcome[] = [];
  for (const page of audit.pages) {
    if (page.status !== 'done' || !page.report_id) continue;
    progress(`asserting ${page.url} (report ${page.report_id})...`);
    const { data } = await o.client.call<ReportAssertion>(
      'POST',
      `/api/v1/reports/${page.report_id}/assert`,
      budget ? { budget } : {},
    );
    out.push({
      url: page.url,
      report_id: page.report_id,
      assertions: data.assertions,
      uncovered: data.uncovered,
      regression:
        baselineRun === undefined
          ? null
          : {
              baseline: `run ${baselineRun}`,
              metrics: regressed.get(page.url) ?? [],
            },
    });
  }
  return out;
}

async function fixesOf(client: Client): Promise<Fixes> {
  const { data } = await client.call<CheckList>('GET', '/api/v1/checks');
  return new Map(data.map((c) => [c.id, { title: c.title, fix: c.fix }]));
}

/** Runs the command; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(usage);
    return 0;
  }
  let o: Options;
  try {
    o = await parseOptions(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`auditcaptcha: ${err.message}\n\n${usage}`);
    return 2;
  }
  try {
    const outcomes: UrlOutcome[] = [];
    if (o.audit !== undefined) outcomes.push(...(await assertAudit(o, o.audit)));
    else for (const url of o.urls) outcomes.push(await assertUrl(o, url));
    for (const u of outcomes) {
      const failing = u.assertions.filter(failsBuild).length;
      const regressions = u.regression?.metrics.filter((m) => m.regressed).map((m) => m.metric) ?? [];
      progress(
        `${u.url}: ${failing} failing, ${u.assertions.length - failing} other assertion(s)` +
          (regressions.length ? `; regressed: ${regressions.join(', ')}` : ''),
      );
    }
    if (o.junit) await writeFile(o.junit, toJUnit(outcomes));
    if (o.markdown) await writeFile(o.markdown, toMarkdown(outcomes, await fixesOf(o.client)));
    const code = exitCodeOf(outcomes);
    progress(code === 0 ? 'budget met' : 'budget not met');
    return code;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    process.stderr.write(`auditcaptcha: ${err.message}\n`);
    return 2;
  }
}
