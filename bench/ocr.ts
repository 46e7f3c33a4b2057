import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Jimp } from 'jimp';
import { ANSWER_ALPHABET, normaliseAnswer } from '../src/captcha/answer.ts';
import { generateAnswer } from '../test/helpers/answers.ts';
import { encodePng, renderChallenge } from '../src/captcha/render.ts';

/**
 * OCR resistance benchmark: renders N v1 challenges and runs Debian's `tesseract` CLI on each
 * in several modes (page segmentation 7 = one line, 8 = one word, 13 = raw line; each with a
 * whitelist of the answer alphabet; 7 and 8 also after two preprocesses: threshold + 3x3
 * majority + 2x upscale, and threshold + morphological opening + 2x upscale). A solve is OCR text equal to the answer after normalisation (whitespace removed,
 * case folded). Prints the solve rate and per-character accuracy per mode. Target: < 2 %.
 * Exits 0 with a note when tesseract is not installed.
 *
 * Run: npx tsx bench/ocr.ts [N=200] [--keep DIR]
 */

const run = promisify(execFile);

type Prep = 'raw' | 'pre' | 'open';

interface Mode {
  name: string;
  psm: number;
  prep: Prep;
}

const MODES: Mode[] = [
  { name: 'psm7', psm: 7, prep: 'raw' },
  { name: 'psm8', psm: 8, prep: 'raw' },
  { name: 'psm13', psm: 13, prep: 'raw' },
  { name: 'psm7+pre', psm: 7, prep: 'pre' },
  { name: 'psm8+pre', psm: 8, prep: 'pre' },
  { name: 'psm7+open', psm: 7, prep: 'open' },
  { name: 'psm8+open', psm: 8, prep: 'open' },
];

/** Solve statistics of one mode. */
export interface ModeResult {
  mode: string;
  solved: number;
  n: number;
  solveRate: number;
  charAccuracy: number;
}

/**
 * Runs the benchmark on `n` assets and prints a table; resolves to per-mode results (empty
 * without tesseract). `keep` names a directory to leave the images in.
 */
export async function main(n = 200, keep?: string): Promise<ModeResult[]> {
  try {
    await run('tesseract', ['--version']);
  } catch {
    console.log('tesseract not found (apt-get install tesseract-ocr); OCR benchmark skipped.');
    return [];
  }
  const dir = keep ?? (await mkdtemp(path.join(tmpdir(), 'ocr-bench-')));
  await mkdir(dir, { recursive: true });
  const items: { answer: string; files: Record<Prep, string> }[] = [];
  for (let i = 0; i < n; i++) {
    const answer = generateAnswer();
    const png = await renderChallenge(answer);
    const files = {
      raw: path.join(dir, `${i}-${answer}.png`),
      pre: path.join(dir, `${i}-${answer}-pre.png`),
      open: path.join(dir, `${i}-${answer}-open.png`),
    };
    await writeFile(files.raw, png);
    await writeFile(files.pre, await preprocess(png, 'pre'));
    await writeFile(files.open, await preprocess(png, 'open'));
    items.push({ answer, files });
  }
  const results: ModeResult[] = [];
  for (const mode of MODES) {
    let solved = 0;
    let chars = 0;
    await forEachLimit(items, 2, async (item) => {
      const text = normaliseAnswer(await ocr(item.files[mode.prep], mode.psm));
      if (text === item.answer) solved++;
      for (let k = 0; k < item.answer.length; k++) if (text[k] === item.answer[k]) chars++;
    });
    results.push({ mode: mode.name, solved, n, solveRate: solved / n, charAccuracy: chars / (n * 5) });
  }
  if (!keep) await rm(dir, { recursive: true, force: true });
  console.log(`tesseract on ${n} v1 assets (whitelist ${ANSWER_ALPHABET})`);
  for (const r of results) {
    console.log(
      `  ${r.mode.padEnd(10)} solved ${String(r.solved).padStart(3)}/${n} = ${(r.solveRate * 100).toFixed(1).padStart(4)} %   chars right ${(r.charAccuracy * 100).toFixed(1)} %`,
    );
  }
  const worst = Math.max(...results.map((r) => r.solveRate));
  console.log(`  target < 2 % in every mode: ${worst < 0.02 ? 'met' : 'NOT met'}`);
  return results;
}

async function ocr(file: string, psm: number): Promise<string> {
  const args = [file, 'stdout', '--psm', String(psm), '-c', `tessedit_char_whitelist=${ANSWER_ALPHABET}`];
  try {
    const { stdout } = await run('tesseract', args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    return stdout;
  } catch {
    return '';
  }
}

/**
 * Attacker-style clean-ups on a binarised image (ink below 3/4 of the mean grey), upscaled 2x:
 * `pre` drops speckles with a 3x3 majority filter; `open` applies a morphological opening
 * (3x3 erode then dilate), which removes lines thinner than the glyph strokes.
 */
async function preprocess(png: Buffer, how: Exclude<Prep, 'raw'>): Promise<Buffer> {
  const img = await Jimp.fromBuffer(png);
  const { width: w, height: h, data } = img.bitmap;
  let sum = 0;
  for (let i = 0; i < w * h; i++) sum += data[i * 4];
  const cut = (sum / (w * h)) * 0.75;
  let bin: Uint8Array = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) bin[i] = data[i * 4] < cut ? 1 : 0;
  if (how === 'pre') bin = neighbourhood(bin, w, h, (n) => n >= 5);
  else
    bin = neighbourhood(
      neighbourhood(bin, w, h, (n) => n === 9),
      w,
      h,
      (n) => n > 0,
    );
  const up = new Uint8Array(w * h * 4);
  for (let y = 0; y < h * 2; y++) {
    for (let x = 0; x < w * 2; x++) up[y * w * 2 + x] = bin[(y >> 1) * w + (x >> 1)] ? 0 : 255;
  }
  return encodePng(up, w * 2, h * 2);
}

/** Sets each pixel from the count of set pixels in its 3x3 neighbourhood. */
function neighbourhood(bin: Uint8Array, w: number, h: number, rule: (count: number) => boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) n += bin[(y + dy) * w + x + dx];
      out[y * w + x] = rule(n) ? 1 : 0;
    }
  }
  return out;
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const keepAt = argv.indexOf('--keep');
  await main(Number(argv.find((a) => /^\d+$/.test(a)) ?? 200), keepAt >= 0 ? argv[keepAt + 1] : undefined);
}
