/**
 * Reading a response body: content decoding (gzip, deflate, brotli) with a byte cap on both
 * the transferred and the decoded size, and text decoding by charset.
 */
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AnalyzeError } from './errors.ts';
import { metaCharset } from './scan.ts';

/** A fully read (or deliberately truncated) body. */
export interface ReadBody {
  bytes: Buffer;
  /** Bytes received on the wire (compressed). */
  transferredBytes: number;
  /** Bytes after content decoding. */
  decodedBytes: number;
  /** True when reading stopped at the cap in truncate mode. */
  truncated: boolean;
}

/** How much to read, and until when. */
export interface BodyLimits {
  maxBytes: number;
  /** Stop quietly at the cap instead of failing with `too_large`. */
  truncate: boolean;
  /** Stops reading and decoding at once when it aborts; the read then rejects with its reason. */
  signal?: AbortSignal;
}

type Decoder = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

/** Content codings we can decode; also the Accept-Encoding we send. */
export const acceptEncoding = 'gzip, deflate, br';

function encodingsOf(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity');
}

function createDecoder(encoding: string, firstChunk: Buffer): Decoder {
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(flush);
    case 'deflate': {
      // "deflate" should be zlib-wrapped, but some servers send raw deflate.
      const b0 = firstChunk[0] ?? 0;
      const b1 = firstChunk[1] ?? 0;
      const zlibWrapped = (b0 & 0x0f) === 8 && ((b0 << 8) | b1) % 31 === 0;
      return zlibWrapped ? zlib.createInflate(flush) : zlib.createInflateRaw(flush);
    }
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      throw new AnalyzeError('network', `The response uses an unsupported content encoding (${encoding}).`);
  }
}

function tooLarge(maxBytes: number): AnalyzeError {
  return new AnalyzeError('too_large', `The response is larger than the ${maxBytes}-byte limit.`);
}

/**
 * Read `body`, decoding `contentEncoding`. Past `maxBytes` (compressed or decoded) reading
 * stops at once: the body and the decoder are destroyed (a compression bomb costs at most
 * the decoder's current step, not the rest of its output), and either `too_large` is thrown
 * or, in truncate mode, the first `maxBytes` decoded bytes are returned. When
 * `limits.signal` aborts, both are destroyed the same way and the read rejects with its reason.
 */
export async function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  limits: BodyLimits,
): Promise<ReadBody> {
  const { signal } = limits;
  const encodings = encodingsOf(contentEncoding);
  if (encodings.length > 1) {
    body.destroy();
    throw new AnalyzeError(
      'network',
      `The response uses stacked content encodings (${contentEncoding}), which are not supported.`,
    );
  }
  const chunks: Buffer[] = [];
  let transferred = 0;
  let decoded = 0;
  let full = false;
  let failure: Error | undefined;
  let decoder: Decoder | undefined;
  let decoderDone: Promise<void> | undefined;

  const stop = (): void => {
    body.destroy();
    decoder?.destroy();
  };
  const accept = (chunk: Buffer): void => {
    if (full) return;
    const room = limits.maxBytes - decoded;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      decoded += Math.max(room, 0);
      full = true;
      stop();
      return;
    }
    chunks.push(chunk);
    decoded += chunk.length;
  };

  signal?.addEventListener('abort', stop, { once: true });
  try {
    signal?.throwIfAborted();
    for await (const raw of body) {
      const chunk = raw as Buffer;
      transferred += chunk.length;
      if (transferred > limits.maxBytes) {
        if (!decoder) accept(chunk);
        full = true;
        break;
      }
      if (encodings.length === 0) {
        accept(chunk);
      } else {
        if (!decoder) {
          const created = createDecoder(encodings[0], chunk);
          decoder = created;
          created.on('data', accept);
          decoderDone = new Promise<void>((resolve) => {
            created.once('end', resolve);
            created.once('close', resolve);
            created.once('error', (err) => {
              failure = err;
              resolve();
            });
          });
        }
        if (!decoder.write(chunk)) await waitDrain(decoder);
      }
      if (full || failure || signal?.aborted) break;
    }
    if (decoder && decoderDone && !full && !failure && !signal?.aborted) {
      decoder.end();
      await decoderDone;
    }
  } catch (err) {
    if (!signal?.aborted && !full) throw err;
  } finally {
    signal?.removeEventListener('abort', stop);
    if (full || failure || signal?.aborted) stop();
  }
  signal?.throwIfAborted();
  if (failure && !full) throw failure;
  if (full && !limits.truncate) throw tooLarge(limits.maxBytes);
  return { bytes: Buffer.concat(chunks), transferredBytes: transferred, decodedBytes: decoded, truncated: full };
}

function waitDrain(stream: Decoder): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

/** The charset parameter of a Content-Type header, lowercased. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType && /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match ? match[1].toLowerCase() : undefined;
}

/** Decode HTML bytes: BOM, then Content-Type charset, then <meta charset> in the first 1024 bytes, then UTF-8. */
export function decodeHtml(bytes: Buffer, contentType: string | undefined): string {
  let label: string | undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = 'utf-8';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  label ??= charsetFromContentType(contentType);
  if (!label) {
    const head = bytes.subarray(0, 1024).toString('latin1');
    label = metaCharset(head)?.toLowerCase();
  }
  if (!label || label === 'utf-8' || label === 'utf8') return bytes.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}
