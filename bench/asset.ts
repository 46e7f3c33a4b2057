import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { CHALLENGE_HEIGHT, CHALLENGE_WIDTH, encodePng, renderChallenge } from '../src/captcha/render.ts';
import { loadGlyphs } from '../src/captcha/glyphs.ts';
import { generateAnswer } from '../test/helpers/answers.ts';

/**
 * Asset benchmark: renders N v1 challenge PNGs one after another and prints median and p95
 * milliseconds per asset, beside the same figures for encoding a blank PNG of the same size
 * with the same encoder (the floor the renderer sits on). Target: median <= 4 ms.
 *
 * Run: npx tsx bench/asset.ts [N=300]
 */

/** Timing summary in milliseconds. */
export interface AssetBenchResult {
  n: number;
  render: { median: number; p95: number; mean: number };
  blankEncode: { median: number; p95: number; mean: number };
  meanBytes: number;
}

/** Runs the benchmark and prints a summary; resolves to the figures. */
export async function main(n = 300): Promise<AssetBenchResult> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('n must be a positive integer');
  await loadGlyphs(); // the glyph masks now rather than on the first render
  const blank = new Uint8Array(CHALLENGE_WIDTH * CHALLENGE_HEIGHT).fill(255);
  const answers = Array.from({ length: n }, () => generateAnswer());
  for (let i = 0; i < 30; i++) {
    await renderChallenge(answers[i % n]); // warm up the JIT
    await encodePng(blank);
  }
  const renderMs: number[] = [];
  const blankMs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    const png = await renderChallenge(answers[i]);
    renderMs.push(performance.now() - t);
    bytes += png.length;
    t = performance.now();
    await encodePng(blank);
    blankMs.push(performance.now() - t);
  }
  const result: AssetBenchResult = {
    n,
    render: summarise(renderMs),
    blankEncode: summarise(blankMs),
    meanBytes: Math.round(bytes / n),
  };
  const fmt = (s: { median: number; p95: number; mean: number }) =>
    `median ${s.median.toFixed(2)} ms  p95 ${s.p95.toFixed(2)} ms  mean ${s.mean.toFixed(2)} ms`;
  console.log(`v1 assets (${CHALLENGE_WIDTH}x${CHALLENGE_HEIGHT}), n=${n}`);
  console.log(`  render+encode : ${fmt(result.render)}  (${result.meanBytes} bytes avg)`);
  console.log(`  blank encode  : ${fmt(result.blankEncode)}`);
  console.log(`  target median <= 4 ms: ${result.render.median <= 4 ? 'met' : 'NOT met'}`);
  return result;
}

function summarise(ms: number[]): { median: number; p95: number; mean: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), mean: ms.reduce((a, b) => a + b, 0) / ms.length };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await main(Number(process.argv[2] ?? 300));
