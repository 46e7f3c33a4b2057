import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { widgetBundle } from '../../src/bundles.ts';

describe('widget bundle', () => {
  it('is one minified script, built once, under 20 KB gzipped', async () => {
    const [a, b] = await Promise.all([widgetBundle(), widgetBundle()]);
    expect(a).toBe(b);
    const code = a.code.toString('utf8');
    expect(code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(code).not.toMatch(/\n\s+\S/); // no indented source lines left
    expect(gunzipSync(a.gzip).equals(a.code)).toBe(true);
    expect(a.gzip.length).toBeLessThan(20 * 1024);
    expect(a.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(a.version).toMatch(/^[0-9a-f]{12}$/);
    console.log(`widget.js: ${a.code.length} bytes, ${a.gzip.length} bytes gzipped`);
  });

  it('loads nothing from third parties and keeps no state in the browser', async () => {
    const code = (await widgetBundle()).code.toString('utf8');
    expect(code).not.toMatch(/https?:\/\//);
    expect(code).not.toMatch(/document\.cookie|localStorage|sessionStorage|indexedDB/);
    expect(code).toContain('credentials:"omit"');
  });
});
