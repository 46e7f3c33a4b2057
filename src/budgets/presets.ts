/**
 * Lighthouse CI's presets `lighthouse:recommended` and `lighthouse:no-pwa`, as far as our checks
 * cover them: LHCI's levels and options for each of its audits that lighthouse-map.ts maps.
 * LHCI's preset also asserts audits we do not measure (speed-index, font-display,
 * unused-css-rules, the PWA audits...); those are left out of the preset here and listed by
 * {@link presetUncovered}, so a budget says what it did not assert rather than passing it.
 * `lighthouse:no-pwa` is `recommended` without the PWA audits, none of which we measure, so the
 * two assert the same here.
 */
import { assertionTarget } from './lighthouse-map.ts';
import type { PresetName } from '../entities/audit-budget.entity.ts';

type Level = 'off' | 'warn' | 'error';
type PresetEntry = [Level, { minScore?: number; maxLength?: number }];

const warn90: PresetEntry = ['warn', { minScore: 0.9 }];
const errorEmpty: PresetEntry = ['error', { maxLength: 0 }];
const warnEmpty: PresetEntry = ['warn', { maxLength: 0 }];
const error: PresetEntry = ['error', {}];

/** LHCI's recommended preset (packages/utils/src/presets/recommended.js), its non-PWA entries. */
const recommended: Record<string, PresetEntry> = {
  'bootup-time': warn90,
  'mainthread-work-breakdown': warn90,
  'first-contentful-paint': warn90,
  interactive: warn90,
  'speed-index': warn90,
  'max-potential-fid': warn90,
  'uses-rel-preload': ['warn', { minScore: 1 }],
  'efficient-animated-content': errorEmpty,
  'offscreen-images': errorEmpty,
  'unminified-css': errorEmpty,
  'unminified-javascript': errorEmpty,
  'unused-css-rules': errorEmpty,
  'uses-optimized-images': errorEmpty,
  'uses-rel-preconnect': errorEmpty,
  'uses-responsive-images': errorEmpty,
  'uses-text-compression': errorEmpty,
  'render-blocking-resources': warnEmpty,
  'uses-webp-images': warnEmpty,
  'uses-long-cache-ttl': warnEmpty,
  'is-on-https': ['warn', {}],
  'redirects-http': ['warn', {}],
  'uses-http2': ['warn', {}],
  'errors-in-console': errorEmpty,
  ...Object.fromEntries(
    [
      'aria-allowed-attr',
      'aria-required-attr',
      'aria-required-children',
      'aria-required-parent',
      'aria-roles',
      'aria-valid-attr-value',
      'aria-valid-attr',
      'audio-caption',
      'button-name',
      'color-contrast',
      'definition-list',
      'document-title',
      'dom-size',
      'duplicate-id',
      'external-anchors-use-rel-noopener',
      'font-display',
      'font-size',
      'frame-title',
      'geolocation-on-start',
      'html-has-lang',
      'html-lang-valid',
      'http-status-code',
      'image-alt',
      'image-aspect-ratio',
      'input-image-alt',
      'is-crawlable',
      'layout-table',
      'link-name',
      'link-text',
      'meta-description',
      'meta-refresh',
      'meta-viewport',
      'no-document-write',
      'no-vulnerable-libraries',
      'notification-on-start',
      'object-alt',
      'password-inputs-can-be-pasted-into',
      'robots-txt',
      'tap-targets',
      'td-headers-attr',
      'th-has-data-cells',
      'total-byte-weight',
      'uses-passive-event-listeners',
      'valid-lang',
      'video-caption',
      'video-description',
      'without-javascript',
      'accesskeys',
      'bypass',
      'canonical',
      'deprecations',
      'dlitem',
      'doctype',
      'hreflang',
      'label',
      'list',
      'listitem',
      'plugins',
      'redirects',
      'tabindex',
      'viewport',
    ].map((id) => [id, error]),
  ),
};

export const presetNames = ['lighthouse:recommended', 'lighthouse:no-pwa'] as const satisfies readonly PresetName[];

/** The preset's assertions that our checks cover. */
export function presetAssertions(_name: PresetName): Record<string, PresetEntry> {
  return Object.fromEntries(Object.entries(recommended).filter(([id]) => assertionTarget(id) !== undefined));
}

/** The preset's audits we do not measure, so not asserted (shown by the CLI). */
export function presetUncovered(_name: PresetName): string[] {
  return Object.keys(recommended).filter((id) => assertionTarget(id) === undefined);
}
