/**
 * JSON text passed through a response without being parsed and serialised again: a list of
 * stored reports sends each report's stored `results` as PostgreSQL returns it. Anything that
 * serialises a RawJson with plain JSON.stringify (tRPC, logs) still gets the right value, by
 * parsing it; {@link encodeWithRaw} splices the text in as it is.
 */
import { randomBytes } from 'node:crypto';

/** Placeholders of the encodeWithRaw call under way (it is synchronous, so one at a time). */
let collecting: { raws: string[]; nonce?: string } | undefined;

export class RawJson {
  /** `text` must be one valid JSON value (PostgreSQL's output of a json/jsonb column is). */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (!collecting) return JSON.parse(this.text);
    // The nonce is drawn on the first RawJson only: answers without one pay nothing for it.
    collecting.nonce ??= `\u0001raw-${randomBytes(6).toString('hex')}-`;
    collecting.raws.push(this.text);
    return `${collecting.nonce}${collecting.raws.length - 1}`;
  }
}

/**
 * JSON.stringify(value) in pieces: the JSON text between RawJsons and each RawJson's own text,
 * in order (one piece when there is none). Joined, they are the JSON.
 */
function piecesWithRaw(value: unknown): string[] {
  const state: { raws: string[]; nonce?: string } = { raws: [] };
  collecting = state;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    collecting = undefined;
  }
  if (!state.nonce) return [text];
  // The nonce starts with U+0001, which JSON.stringify always escapes as \u0001.
  const marker = `"${JSON.stringify(state.nonce).slice(1, -1)}`;
  const pieces: string[] = [];
  let from = 0;
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, from)) {
    const end = text.indexOf('"', at + marker.length);
    pieces.push(text.slice(from, at), state.raws[Number(text.slice(at + marker.length, end))]);
    from = end + 1;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/**
 * JSON.stringify(value), with every RawJson inside written as its text, unparsed, as a
 * response body: the string itself when `value` holds no RawJson, else its UTF-8 bytes, each piece encoded once into one buffer, rather than
 * a rope of pieces the HTTP layer would flatten to measure and encode again to write
 * (docs/decisions/0006-raw-json-results.md).
 */
export function encodeWithRaw(value: unknown): string | Buffer {
  const pieces = piecesWithRaw(value);
  if (pieces.length === 1) return pieces[0];
  return Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'utf8')));
}
