/**
 * The accessibility category's score (Lighthouse's weighted mean over applicable rules) and
 * what is kept of axe's answer from a page (known rules, bounded strings and nodes).
 */
import { describe, expect, it } from 'vitest';
import {
  accessibilityRules,
  accessibilityScore,
  maxAccessibilityNodes,
} from '../../src/analyzer/checks/accessibility-rules.ts';
import { accessibilityChecks } from '../../src/analyzer/render/accessibility-results.ts';
import { sanitizeAxe, type AxeRun } from '../../src/analyzer/render/axe.ts';
import { scoreResults } from '../../src/analyzer/scoring.ts';

const run = (over: Partial<AxeRun>): AxeRun => ({
  version: '4.14.1',
  violations: [],
  incomplete: [],
  inapplicable: accessibilityRules.map((r) => r.axe),
  elapsedMs: 1,
  ...over,
});
const node = { selector: 'img', snippet: '<img>', why: 'x' };

describe('the accessibility score', () => {
  it('is the weighted mean of applicable rules; not applicable left out, needs review passing', () => {
    const inapplicable = accessibilityRules
      .map((r) => r.axe)
      .filter((id) => !['image-alt', 'color-contrast', 'heading-order', 'duplicate-id-aria'].includes(id));
    const checks = accessibilityChecks(
      run({
        inapplicable,
        violations: [{ rule: 'color-contrast', impact: 'serious', count: 3, nodes: [node] }],
        incomplete: [{ rule: 'duplicate-id-aria', impact: 'moderate', count: 1, nodes: [node] }],
      }),
    );
    // Applicable: image-alt 10 (passed), color-contrast 7 (failed), heading-order 3 (passed),
    // duplicate-id-aria (needs review; informative in Lighthouse, weight 0): 13 of 20.
    const score = accessibilityScore(checks);
    expect(score).toEqual({
      score: Math.round((100 * 13) / 20),
      passed: 2,
      failed: 1,
      needsReview: 1,
      notApplicable: 53,
      failing: ['a11y_color_contrast'],
    });
    const contrast = checks.find((c) => c.id === 'a11y_color_contrast')!;
    expect(contrast).toMatchObject({
      passed: false,
      category: 'accessibility',
      importance: 'medium',
      value: { outcome: 'failed', impact: 'serious', nodes: 3, weight: 7 },
      details: [node],
    });
    expect(checks.find((c) => c.id === 'a11y_duplicate_id_aria')).toMatchObject({
      passed: true,
      value: { outcome: 'needs_review', impact: 'moderate', nodes: 1, weight: 0 },
    });
  });

  it('lists failing rules heaviest first, and is null when nothing applies', () => {
    const checks = accessibilityChecks(
      run({
        inapplicable: [],
        violations: [
          { rule: 'heading-order', impact: 'moderate', count: 1, nodes: [] },
          { rule: 'image-alt', impact: 'critical', count: 1, nodes: [] },
          { rule: 'label', impact: 'critical', count: 1, nodes: [] },
        ],
      }),
    );
    expect(accessibilityScore(checks).failing).toEqual(['a11y_image_alt', 'a11y_label', 'a11y_heading_order']);
    expect(accessibilityScore(accessibilityChecks(run({}))).score).toBeNull();
  });

  it('is not part of the report’s score', () => {
    const checks = accessibilityChecks(run({ inapplicable: [] }));
    const failing = checks.map((c) => ({ ...c, passed: false }));
    const page = {
      id: 'title',
      category: 'seo' as const,
      importance: 'high' as const,
      passed: true,
      value: 'T',
      details: [],
    };
    expect(scoreResults([page, ...failing], { high: 10, medium: 5, low: 0 }).score).toBe(100);
  });

  it('gives no checks when axe could not run', () => {
    expect(accessibilityChecks(run({ error: 'timeout' }))).toEqual([]);
  });
});

describe('what is kept of axe’s answer', () => {
  it('drops unknown rules, bounds strings and nodes', () => {
    const long = 'x'.repeat(5000);
    const kept = sanitizeAxe(
      {
        version: '4.14.1',
        violations: [
          {
            rule: 'image-alt',
            impact: 'critical',
            count: 40,
            nodes: Array.from({ length: 40 }, () => ({ selector: long, snippet: long, why: long })),
          },
          { rule: 'made-up-rule', impact: 'critical', count: 1, nodes: [] },
          { rule: 'label', impact: 'catastrophic', count: -3, nodes: 'nope' },
        ],
        incomplete: 'nope',
        inapplicable: ['video-caption', 'made-up-rule', 7],
      },
      12,
    );
    expect(kept.violations.map((v) => v.rule)).toEqual(['image-alt', 'label']);
    const [alt, label] = kept.violations;
    expect(alt.nodes).toHaveLength(maxAccessibilityNodes);
    expect(alt.count).toBe(40);
    expect(alt.nodes[0].selector.length).toBeLessThanOrEqual(300);
    expect(alt.nodes[0].why.length).toBeLessThanOrEqual(600);
    expect(label).toEqual({ rule: 'label', impact: null, count: 0, nodes: [] });
    expect(kept.incomplete).toEqual([]);
    expect(kept.inapplicable).toEqual(['video-caption']);
    expect(sanitizeAxe(null, 1)).toMatchObject({ violations: [], incomplete: [], inapplicable: [] });
  });
});
