/**
 * The part of opentype.js (which ships no types) that scripts/make-probe-font.ts uses to write
 * the environment proof's font and test/adversary/layout-bot.ts uses to read it.
 */
declare module 'opentype.js' {
  interface GlyphOptions {
    name: string;
    unicode?: number;
    advanceWidth: number;
    path: Path;
  }
  class Path {}
  class Glyph {
    constructor(options: GlyphOptions);
    advanceWidth: number;
    index: number;
  }
  class Font {
    constructor(options: {
      familyName: string;
      styleName: string;
      unitsPerEm: number;
      ascender: number;
      descender: number;
      glyphs: Glyph[];
    });
    unitsPerEm: number;
    charToGlyph(ch: string): Glyph;
    toArrayBuffer(): ArrayBuffer;
  }
  const opentype: { Path: typeof Path; Glyph: typeof Glyph; Font: typeof Font; parse(buffer: ArrayBuffer): Font };
  export default opentype;
}
