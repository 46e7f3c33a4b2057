/**
 * JUnit XML of a CI run: one `<testsuite>` per URL, one `<testcase>` per assertion (and one per
 * metric tested against the baseline). An `error` assertion that failed or could not be
 * measured, and a significant regression, are `<failure>`s; a `warn` assertion that failed is
 * a passing test case with the warning in `<system-out>`, so a CI's test view shows it without
 * failing the build (the exit code says the same).
 */
import { failsBuild, type UrlOutcome } from './outcome.ts';

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

interface Case {
  name: string;
  failure?: { message: string; type: string; text: string };
  out?: string;
}

function describeAssertion(a: UrlOutcome['assertions'][number]): string {
  if (a.status === 'not_measured') return `${a.key}: not measured (${a.message ?? 'no value'})`;
  return `${a.key}: ${a.name} ${a.actual} ${a.status === 'passed' ? '' : 'not '}${a.operator} ${a.expected} (${a.aggregationMethod} of ${a.values.join(', ')})`;
}

function casesOf(o: UrlOutcome): Case[] {
  const cases: Case[] = o.assertions.map((a) => {
    const name = `${a.key} ${a.name}`;
    const text = describeAssertion(a);
    if (failsBuild(a)) return { name, failure: { message: text, type: a.status, text } };
    if (a.status !== 'passed') return { name, out: `WARN ${text}` };
    return { name };
  });
  for (const m of o.regression?.metrics ?? []) {
    const text = `${m.metric}: median ${m.median} against ${m.baseline_median} (${o.regression!.baseline}), p = ${m.p_value}`;
    cases.push({
      name: `regression ${m.metric}`,
      ...(m.regressed ? { failure: { message: `regressed: ${text}`, type: 'regression', text } } : { out: text }),
    });
  }
  return cases;
}

/** The JUnit XML document. */
export function toJUnit(outcomes: readonly UrlOutcome[]): string {
  const suites = outcomes.map((o) => ({ o, cases: casesOf(o) }));
  const total = suites.reduce((s, x) => s + x.cases.length, 0);
  const failures = suites.reduce((s, x) => s + x.cases.filter((c) => c.failure).length, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="auditcaptcha assert" tests="${total}" failures="${failures}" errors="0">`,
  ];
  for (const [i, { o, cases }] of suites.entries()) {
    const failed = cases.filter((c) => c.failure).length;
    lines.push(
      `  <testsuite name="${escapeXml(o.url)}" id="${i}" tests="${cases.length}" failures="${failed}" errors="0" skipped="0">`,
    );
    for (const c of cases) {
      const open = `    <testcase classname="${escapeXml(o.url)}" name="${escapeXml(c.name)}" time="0"`;
      if (!c.failure && !c.out) {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      if (c.failure) {
        lines.push(
          `      <failure message="${escapeXml(c.failure.message)}" type="${escapeXml(c.failure.type)}">${escapeXml(c.failure.text)}</failure>`,
        );
      }
      if (c.out) lines.push(`      <system-out>${escapeXml(c.out)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
