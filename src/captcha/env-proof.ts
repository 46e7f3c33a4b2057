import { createHmac } from 'node:crypto';
import { subkey } from './subkeys.ts';

/**
 * The browser-environment proof: each challenge carries a small program, generated from the
 * challenge id under a server key, that the widget runs in a real page (widget/env.ts):
 * CSS box-model, em, flex and grid layout measured with offsetWidth, colours normalised by
 * getComputedStyle, markup parsed by the HTML parser. Each measured value is mixed with a
 * per-challenge constant into one 32-bit result, which the server recomputes from the id.
 *
 * What it proves: the answer came from something with a CSS layout engine and an HTML
 * parser (a browser), or from someone who wrote an emulator of exactly these operations for
 * this service. It is a cost raiser, like Cap's instrumentation challenges, not a wall: the
 * proof of work is what every token costs.
 *
 * Opcodes and what the widget must return for them (all values are integers):
 *
 * | op | args            | page operation (inside a shadow root, styles set inline)                  | value |
 * |----|-----------------|----------------------------------------------------------------------------|-------|
 * | 0  | w, p, b         | div, content-box, width w px, padding p px, border b px: offsetWidth        | w+2p+2b |
 * | 1  | f, k            | div, font-size f px, width k em: offsetWidth                               | f·k |
 * | 2  | m, n            | flex row of width m·n px with n children `flex: 1 1 0`: first child's offsetWidth | m |
 * | 3  | r, g, b         | `color: rgb(...)` written as #rrggbb, read back with getComputedStyle: r·65536+g·256+b | |
 * | 4  | n               | innerHTML of n `<i></i>` inside a `<b>`: count of `i` elements               | n |
 * | 5  | c, w, g         | grid of c columns of w px with column-gap g px, width max-content: offsetWidth | c·w+(c−1)·g |
 *
 * Every op ends with a constant k; the result is FNV-1a-style mixing:
 * `acc = imul(acc ^ ((value + k) >>> 0), 0x01000193) >>> 0`, from `acc = seed`.
 */

/** One instruction: opcode, its arguments, then the mixing constant. */
export type EnvOp = number[];

export interface EnvProgram {
  seed: number;
  ops: EnvOp[];
}

const OPS_PER_PROGRAM = 6;

/**
 * How a program is drawn from its challenge id. 0: 32-bit words of HMAC-SHA-256(key,
 * `id:block`) for blocks 0, 1, ... (about 31 words, four HMACs). 1: one HMAC of `id:env1`
 * seeds xoshiro128** (the program is public once issued; what matters is that no one can
 * draw the program of an id without the key, and one HMAC decides it), a quarter of the
 * HMACs on every challenge issued and checked. A work ticket carries the version its program
 * was drawn with (work.ts), so tickets issued before version 1 still check.
 */
export type EnvVersion = 0 | 1;

/** The version new tickets are issued with. */
export const ENV_VERSION: EnvVersion = 1;

const envKey = (tokenKey: Buffer) => subkey(tokenKey, 'env-proof');

/** Version 0: a deterministic word stream of HMAC blocks of the challenge id. */
function hmacStream(tokenKey: Buffer, id: string): () => number {
  let block = 0;
  let buf = Buffer.alloc(0);
  let pos = 0;
  return () => {
    if (pos + 4 > buf.length) {
      buf = createHmac('sha256', envKey(tokenKey)).update(`${id}:${block++}`).digest();
      pos = 0;
    }
    const v = buf.readUInt32BE(pos);
    pos += 4;
    return v;
  };
}

/** Version 1: xoshiro128** seeded with the first 128 bits of one HMAC of the challenge id. */
function seededStream(tokenKey: Buffer, id: string): () => number {
  const seed = createHmac('sha256', envKey(tokenKey)).update(`${id}:env1`).digest();
  let a = seed.readUInt32BE(0);
  let b = seed.readUInt32BE(4);
  let c = seed.readUInt32BE(8);
  let d = seed.readUInt32BE(12);
  if ((a | b | c | d) === 0) a = 1; // the one state xoshiro cannot leave (odds 2^-128)
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
}

const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));

/** The program for challenge `id` (the same every time it is asked for, for one version). */
export function envProgram(tokenKey: Buffer, id: string, version: EnvVersion = ENV_VERSION): EnvProgram {
  const next = version === 0 ? hmacStream(tokenKey, id) : seededStream(tokenKey, id);
  const int = (lo: number, hi: number) => lo + (next() % (hi - lo + 1));
  const seed = next();
  const ops: EnvOp[] = [];
  for (let i = 0; i < OPS_PER_PROGRAM; i++) {
    const op = next() % 6;
    const k = next() >>> 8;
    if (op === 0) ops.push([0, int(10, 400), int(0, 40), int(0, 20), k]);
    else if (op === 1) ops.push([1, int(8, 40), int(2, 30), k]);
    else if (op === 2) ops.push([2, int(5, 80), int(2, 9), k]);
    else if (op === 3) ops.push([3, int(0, 255), int(0, 255), int(0, 255), k]);
    else if (op === 4) ops.push([4, int(1, 40), k]);
    else ops.push([5, int(2, 8), int(5, 60), int(0, 20), k]);
  }
  return { seed, ops };
}

/** What a browser computes for one op (see the table above). */
function valueOf(op: EnvOp): number {
  const a = op[1],
    b = op[2],
    c = op[3];
  switch (op[0]) {
    case 0:
      return a + 2 * b + 2 * c;
    case 1:
      return a * b;
    case 2:
      return a;
    case 3:
      return a * 65536 + b * 256 + c;
    case 4:
      return a;
    default:
      return a * b + (a - 1) * c;
  }
}

/** The answer expected for a program. */
export function envAnswer(program: EnvProgram): number {
  let acc = program.seed >>> 0;
  for (const op of program.ops) acc = Math.imul(acc ^ ((valueOf(op) + op[op.length - 1]) >>> 0), 0x01000193) >>> 0;
  return acc;
}

/**
 * Whether `given` (decimal string or number) is the answer to challenge `id`'s program, drawn
 * with `version` (the one its ticket carries).
 */
export function checkEnv(tokenKey: Buffer, id: string, given: unknown, version: EnvVersion): boolean {
  const n =
    typeof given === 'number' ? given : typeof given === 'string' && /^\d{1,10}$/.test(given) ? Number(given) : NaN;
  return n === envAnswer(envProgram(tokenKey, id, version));
}
