import { describe, expect, it } from 'vitest';
import { bundleNamed, WIDGET_ENTRIES } from '../../src/bundles.ts';

/** The budget for all the console's JavaScript, compressed as it is served. */
const CONSOLE_JS_GZIP_BUDGET = 80 * 1024;

describe('the console bundle', () => {
  it('keeps all its JavaScript within 80 KB gzip, with the UI and chart libraries inside', async () => {
    const scripts = WIDGET_ENTRIES.filter((e) => e.name.startsWith('console') && e.format !== 'css');
    expect(scripts.map((e) => e.name)).toEqual(['console.js']);
    const js = await bundleNamed('console.js');
    console.log(`console.js: ${js.code.length} bytes, ${js.gzip.length} gzip`);
    expect(js.gzip.length).toBeLessThanOrEqual(CONSOLE_JS_GZIP_BUDGET);
    const code = js.code.toString();
    // Nothing fetched from elsewhere at run time: no absolute script or module URLs.
    expect(code).not.toMatch(/import\s*\(\s*["']https?:/);
    expect(code).not.toMatch(/\beval\(|new Function\(/);
    const css = await bundleNamed('console.css');
    expect(css.code.toString()).toContain('.uplot');
    expect(css.code.toString()).not.toMatch(/@import|url\(\s*["']?https?:/);
  }, 60_000);
});
