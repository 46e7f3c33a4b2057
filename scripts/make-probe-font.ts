/**
 * Writes shared/probe-font.ts: the font the environment proof's text is laid out in
 * (src/captcha/env-proof.ts). A font of plain boxes, made here rather than taken from a
 * system, so every engine on every platform lays the text out with the same advances: each
 * glyph's advance is a multiple of a tenth of the em, and the proof's font sizes are
 * multiples of ten pixels, so every advance is a whole pixel and no platform's rounding or
 * hinting moves a line break. No kerning and no ligatures, and no outlines: the proof is laid
 * out hidden, so only advances and metrics matter, and the widget carries a font of about a
 * kilobyte. Run `npx tsx
 * scripts/make-probe-font.ts` after changing it; the output is committed.
 */
import { writeFileSync } from 'node:fs';
import opentype from 'opentype.js';

const UNITS = 1000;
/** Advances in tenths of the em, a to z; capitals are one tenth wider, capped at nine. */
const LOWER = [6, 6, 5, 6, 6, 3, 6, 6, 3, 3, 5, 3, 9, 6, 6, 6, 6, 4, 5, 4, 6, 5, 8, 5, 5, 5];

interface Glyph {
  name: string;
  unicode?: number;
  advanceWidth: number;
  path: InstanceType<typeof opentype.Path>;
}

/** No outline: nothing of the proof is ever painted. */
const empty = () => new opentype.Path();

const glyphs: Glyph[] = [{ name: '.notdef', advanceWidth: 500, path: empty() }];
glyphs.push({ name: 'space', unicode: 32, advanceWidth: 300, path: empty() });
LOWER.forEach((tenths, i) => {
  const lower = String.fromCharCode(97 + i);
  glyphs.push({ name: lower, unicode: 97 + i, advanceWidth: tenths * 100, path: empty() });
  const upper = Math.min(9, tenths + 1) * 100;
  glyphs.push({ name: lower.toUpperCase(), unicode: 65 + i, advanceWidth: upper, path: empty() });
});

const font = new opentype.Font({
  familyName: 'AuditcaptchaProbe',
  styleName: 'Regular',
  unitsPerEm: UNITS,
  ascender: 800,
  descender: -200,
  glyphs: glyphs.map((g) => new opentype.Glyph(g)),
});
const bytes = Buffer.from(font.toArrayBuffer());
const out = `/**
 * The environment proof's font (OpenType, advances and metrics, no outlines), base64. Served
 * at PROBE_FONT_PATH (probe-font-path.ts) and carried by the env-probes.js bundle. Generated
 * by scripts/make-probe-font.ts: do not edit.
 */
export const PROBE_FONT_BASE64 =
  '${bytes.toString('base64')}';
`;
writeFileSync(new URL('../shared/probe-font.ts', import.meta.url), out);
console.log(`shared/probe-font.ts: ${bytes.length} bytes of font`);
