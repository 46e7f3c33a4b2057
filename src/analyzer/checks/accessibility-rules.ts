/**
 * The accessibility category: the rules Lighthouse 12's accessibility category scores, each
 * an axe-core rule run in the rendered page (render/axe.ts), and the category's own score.
 *
 * Rules and weights are those of Lighthouse 12.8's `core/config/default-config.js`
 * (accessibility category, every audit with a weight above 0); each Lighthouse audit there is
 * named after the axe rule it reads. Our check id is the rule's with an `a11y_` prefix and
 * underscores. Importance follows the weight: 10 high, 7 medium, 3 and 1 low. Five of those
 * audits are "informative" in Lighthouse (bypass, duplicate-id-aria, form-field-multiple-labels,
 * th-has-data-cells, video-caption): shown, never scored whatever their configured weight, so
 * their weight here is 0 (reported, not scored).
 *
 * The category score is Lighthouse's: the weighted mean of the rules that apply to the page
 * (a rule axe found nothing to test on is left out), 0-100. A rule whose only findings are
 * axe's "needs review" (incomplete) counts as passing, as in Lighthouse; reports list those
 * nodes apart. The category is not part of the report's overall score (scoring.ts).
 */
import type { Importance } from './types.ts';

/** How a rule came out on a page. */
export type AccessibilityOutcome = 'passed' | 'failed' | 'not_applicable' | 'needs_review';

/** axe's impact of a finding. */
export type AxeImpact = 'minor' | 'moderate' | 'serious' | 'critical';

/** The value of an accessibility check in a report. */
export interface AccessibilityValue {
  outcome: AccessibilityOutcome;
  /** The worst impact axe gave the failing (or, for needs_review, the unclear) nodes; null when none. */
  impact: AxeImpact | null;
  /** Nodes failing (or needing review); the details list at most {@link maxAccessibilityNodes}. */
  nodes: number;
  /** The rule's weight in the category score (Lighthouse's), so a report's entries score alone. */
  weight: number;
}

/** One failing (or unclear) element as a detail: where it is, what it looks like, why. */
export interface AccessibilityNode {
  selector: string;
  snippet: string;
  why: string;
}

/** Most nodes listed per rule. */
export const maxAccessibilityNodes = 5;

const importanceOf = (weight: number): Importance => (weight >= 10 ? 'high' : weight >= 7 ? 'medium' : 'low');

const rule = <Id extends string>(id: Id, axe: string, weight: number) =>
  ({ id, category: 'accessibility', importance: importanceOf(weight), source: 'rendered', axe, weight }) as const;

/** An audit Lighthouse shows as informative: its configured weight never counts (ReportScoring). */
const informative = <Id extends string>(id: Id, axe: string) => rule(id, axe, 0);

/** Lighthouse 12's scored accessibility audits, in its order: our id, the axe rule, its weight. */
export const accessibilityRules = [
  rule('a11y_accesskeys', 'accesskeys', 7),
  rule('a11y_aria_allowed_attr', 'aria-allowed-attr', 10),
  rule('a11y_aria_allowed_role', 'aria-allowed-role', 1),
  rule('a11y_aria_command_name', 'aria-command-name', 7),
  rule('a11y_aria_conditional_attr', 'aria-conditional-attr', 7),
  rule('a11y_aria_deprecated_role', 'aria-deprecated-role', 1),
  rule('a11y_aria_dialog_name', 'aria-dialog-name', 7),
  rule('a11y_aria_hidden_body', 'aria-hidden-body', 10),
  rule('a11y_aria_hidden_focus', 'aria-hidden-focus', 7),
  rule('a11y_aria_input_field_name', 'aria-input-field-name', 7),
  rule('a11y_aria_meter_name', 'aria-meter-name', 7),
  rule('a11y_aria_progressbar_name', 'aria-progressbar-name', 7),
  rule('a11y_aria_prohibited_attr', 'aria-prohibited-attr', 7),
  rule('a11y_aria_required_attr', 'aria-required-attr', 10),
  rule('a11y_aria_required_children', 'aria-required-children', 10),
  rule('a11y_aria_required_parent', 'aria-required-parent', 10),
  rule('a11y_aria_roles', 'aria-roles', 7),
  rule('a11y_aria_text', 'aria-text', 7),
  rule('a11y_aria_toggle_field_name', 'aria-toggle-field-name', 7),
  rule('a11y_aria_tooltip_name', 'aria-tooltip-name', 7),
  rule('a11y_aria_treeitem_name', 'aria-treeitem-name', 7),
  rule('a11y_aria_valid_attr_value', 'aria-valid-attr-value', 10),
  rule('a11y_aria_valid_attr', 'aria-valid-attr', 10),
  rule('a11y_button_name', 'button-name', 10),
  informative('a11y_bypass', 'bypass'), // configured weight 7
  rule('a11y_color_contrast', 'color-contrast', 7),
  rule('a11y_definition_list', 'definition-list', 7),
  rule('a11y_dlitem', 'dlitem', 7),
  rule('a11y_document_title', 'document-title', 7),
  informative('a11y_duplicate_id_aria', 'duplicate-id-aria'), // configured weight 10
  informative('a11y_form_field_multiple_labels', 'form-field-multiple-labels'), // configured weight 3
  rule('a11y_frame_title', 'frame-title', 7),
  rule('a11y_heading_order', 'heading-order', 3),
  rule('a11y_html_has_lang', 'html-has-lang', 7),
  rule('a11y_html_lang_valid', 'html-lang-valid', 7),
  rule('a11y_html_xml_lang_mismatch', 'html-xml-lang-mismatch', 3),
  rule('a11y_image_alt', 'image-alt', 10),
  rule('a11y_image_redundant_alt', 'image-redundant-alt', 1),
  rule('a11y_input_button_name', 'input-button-name', 10),
  rule('a11y_input_image_alt', 'input-image-alt', 10),
  rule('a11y_label', 'label', 7),
  rule('a11y_link_in_text_block', 'link-in-text-block', 7),
  rule('a11y_link_name', 'link-name', 7),
  rule('a11y_list', 'list', 7),
  rule('a11y_listitem', 'listitem', 7),
  rule('a11y_meta_refresh', 'meta-refresh', 10),
  rule('a11y_meta_viewport', 'meta-viewport', 10),
  rule('a11y_object_alt', 'object-alt', 7),
  rule('a11y_select_name', 'select-name', 7),
  rule('a11y_skip_link', 'skip-link', 3),
  rule('a11y_tabindex', 'tabindex', 7),
  rule('a11y_table_duplicate_name', 'table-duplicate-name', 1),
  rule('a11y_target_size', 'target-size', 7),
  rule('a11y_td_headers_attr', 'td-headers-attr', 7),
  informative('a11y_th_has_data_cells', 'th-has-data-cells'), // configured weight 7
  rule('a11y_valid_lang', 'valid-lang', 7),
  informative('a11y_video_caption', 'video-caption'), // configured weight 10
] as const;

/** An accessibility rule as the table gives it. */
export type AccessibilityRule = (typeof accessibilityRules)[number];

const byId = new Map<string, AccessibilityRule>(accessibilityRules.map((r) => [r.id, r]));

/** The rule behind check `id`, if it is an accessibility check. */
export function accessibilityRule(id: string): AccessibilityRule | undefined {
  return byId.get(id);
}

/**
 * axe's run options, as Lighthouse 12 gives them (gather/gatherers/accessibility.js): the
 * WCAG 2 A and AA rules plus the best-practice rules its audits read, minus those it turns off.
 * `iframes: false`: axe is injected into the top document only, so it does not wait for frames
 * that have no axe to answer (each frame's own content is not checked; its title is).
 */
export const axeRunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
  // Lighthouse asks for violations and inapplicable rules only; we also want every node axe
  // could not decide (listed as needs review), which only changes what is listed, not verdicts.
  resultTypes: ['violations', 'incomplete', 'inapplicable'],
  iframes: false,
  rules: Object.fromEntries([
    ...[
      'accesskeys',
      'aria-allowed-role',
      'aria-conditional-attr',
      'aria-deprecated-role',
      'aria-dialog-name',
      'aria-prohibited-attr',
      'aria-treeitem-name',
      'aria-text',
      'empty-heading',
      'heading-order',
      'html-xml-lang-mismatch',
      'identical-links-same-purpose',
      'image-redundant-alt',
      'input-button-name',
      'label-content-name-mismatch',
      'landmark-one-main',
      'link-in-text-block',
      'meta-viewport',
      'select-name',
      'skip-link',
      'tabindex',
      'table-duplicate-name',
      'table-fake-caption',
      'target-size',
      'td-has-header',
    ].map((id) => [id, { enabled: true }]),
    ...[
      'area-alt',
      'aria-braille-equivalent',
      'aria-roledescription',
      'audio-caption',
      'blink',
      'duplicate-id',
      'frame-focusable-content',
      'frame-title-unique',
      'marquee',
      'nested-interactive',
      'no-autoplay-audio',
      'role-img-alt',
      'scrollable-region-focusable',
      'server-side-image-map',
      'summary-name',
      'svg-img-alt',
    ].map((id) => [id, { enabled: false }]),
  ]) as Record<string, { enabled: boolean }>,
} as const;

/** One accessibility check as the score reads it (a stored entry or an analyzer result). */
export interface ScoredAccessibilityCheck {
  id: string;
  passed: boolean;
  value: unknown;
}

/** The accessibility category of one page. */
export interface AccessibilityScore {
  /** Lighthouse's weighted mean of the applicable rules, 0-100; null when none applies. */
  score: number | null;
  passed: number;
  failed: number;
  needsReview: number;
  notApplicable: number;
  /** Failing check ids, heaviest first (report order among equals). */
  failing: string[];
}

/** The outcome of a stored accessibility value; a check without one counts as what `passed` says. */
export function accessibilityOutcome(check: ScoredAccessibilityCheck): AccessibilityOutcome {
  const outcome = (check.value as { outcome?: unknown } | null)?.outcome;
  if (outcome === 'passed' || outcome === 'failed' || outcome === 'not_applicable' || outcome === 'needs_review') {
    return outcome;
  }
  return check.passed ? 'passed' : 'failed';
}

/** The category score and counts of the accessibility checks among `checks` (others are ignored). */
export function accessibilityScore(checks: Iterable<ScoredAccessibilityCheck>): AccessibilityScore {
  let total = 0;
  let earned = 0;
  const counts = { passed: 0, failed: 0, needsReview: 0, notApplicable: 0 };
  const failing: AccessibilityRule[] = [];
  for (const check of checks) {
    const rule = byId.get(check.id);
    if (!rule) continue;
    const outcome = accessibilityOutcome(check);
    if (outcome === 'not_applicable') {
      counts.notApplicable++;
      continue;
    }
    total += rule.weight;
    if (outcome === 'failed') {
      counts.failed++;
      failing.push(rule);
      continue;
    }
    earned += rule.weight;
    if (outcome === 'needs_review') counts.needsReview++;
    else counts.passed++;
  }
  const order = (id: string) => accessibilityRules.findIndex((r) => r.id === id);
  failing.sort((a, b) => b.weight - a.weight || order(a.id) - order(b.id));
  return {
    // Lighthouse keeps the mean to two decimals and shows it times 100: the same integer.
    score: total > 0 ? Math.round((100 * earned) / total) : null,
    ...counts,
    failing: failing.map((r) => r.id),
  };
}
