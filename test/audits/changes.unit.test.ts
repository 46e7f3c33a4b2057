/**
 * A run's summary and diff with the accessibility category: the mean accessibility score of
 * the rendered pages and the rules failing on the most pages apart from phpRank's checks, and
 * a fixed accessibility fault listed as fixed on its page (a new one as newly failing).
 */
import { describe, expect, it } from 'vitest';
import { accessibilityRules, accessibilityScore } from '../../src/analyzer/checks/accessibility-rules.ts';
import { accessibilityChecks } from '../../src/analyzer/render/accessibility-results.ts';
import type { AxeRun } from '../../src/analyzer/render/axe.ts';
import { diffRuns, summarize, type RunPage } from '../../src/audits/changes.ts';

const node = { selector: 'img', snippet: '<img src="a.png">', why: 'Element does not have an alt attribute' };

/** A rendered page's row as settlePage stores it, from axe's findings. */
function renderedRow(url: string, violations: AxeRun['violations'], failingChecks: string[] = []): RunPage {
  const checks = accessibilityChecks({
    version: '4.14.1',
    violations,
    incomplete: [],
    inapplicable: accessibilityRules
      .map((r) => r.axe)
      .filter((id) => !['image-alt', 'label', 'color-contrast'].includes(id)),
    elapsedMs: 100,
  });
  return {
    url,
    status: 'done',
    result: 'good',
    score: 90,
    failing: [...failingChecks, ...checks.filter((c) => !c.passed).map((c) => c.id)],
    accessibility_score: accessibilityScore(checks).score,
  };
}

const missingAlt = { rule: 'image-alt', impact: 'critical' as const, count: 2, nodes: [node] };
const noLabel = { rule: 'label', impact: 'critical' as const, count: 1, nodes: [node] };

describe('an audit run with rendered pages', () => {
  it('summarizes the accessibility score and the rules failing on the most pages, apart from checks', () => {
    const summary = summarize([
      renderedRow('https://s.example/a', [missingAlt], ['meta_description']),
      renderedRow('https://s.example/b', [missingAlt, noLabel]),
      renderedRow('https://s.example/c', []),
    ]);
    // Applicable: image-alt 10, label 7, color-contrast 7. a: 14 of 24; b: 7 of 24; c: all.
    expect(summary.accessibility).toEqual({
      status: 'measured',
      pages: 3,
      score: Math.round((Math.round((100 * 14) / 24) + Math.round((100 * 7) / 24) + 100) / 3),
      top_failing_rules: [
        { rule: 'a11y_image_alt', pages: 2 },
        { rule: 'a11y_label', pages: 1 },
      ],
    });
    expect(summary.top_failing_checks).toEqual([{ check: 'meta_description', pages: 1 }]);
  });

  it('lists a fixed fault as fixed on its page, a new one as newly failing', () => {
    const before = [renderedRow('https://s.example/a', [missingAlt]), renderedRow('https://s.example/b', [])];
    const after = [renderedRow('https://s.example/a', []), renderedRow('https://s.example/b', [noLabel])];
    const changes = diffRuns(7, before, after);
    expect(changes.accessibility).toEqual({
      fixed: [{ url: 'https://s.example/a', rules: ['a11y_image_alt'] }],
      newly_failing: [{ url: 'https://s.example/b', rules: ['a11y_label'] }],
    });
    // phpRank's checks did not move.
    expect(changes.fixed).toEqual([]);
    expect(changes.newly_failing).toEqual([]);
  });

  it('says the category needs rendering when no page was rendered', () => {
    const summary = summarize([
      {
        url: 'https://s.example/a',
        status: 'done',
        result: 'bad',
        score: 40,
        failing: ['title'],
        accessibility_score: null,
      },
    ]);
    expect(summary.accessibility).toEqual({ status: 'needs_rendering', pages: 0, score: null, top_failing_rules: [] });
  });
});
