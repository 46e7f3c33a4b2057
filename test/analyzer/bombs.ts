/**
 * Compression bombs, built at test time in well under a second.
 *
 * Brotli: a streaming compressor fed 16 MiB of zeros and flushed emits, once its window holds
 * zeros, the same few bytes for every further 16 MiB (one copy command); repeating that
 * block gives any decoded size. 16 GiB comes out at about 14 KB, a valid stream.
 *
 * Gzip: deflate cannot exceed about 1032:1, so the bomb is a run of identical gzip members
 * (each 1 MiB of zeros, about 1 KB), which decoders read as one stream.
 */
import zlib from 'node:zlib';

const MiB = 1 << 20;

/** A valid brotli stream decoding to `gib` GiB of zero bytes. */
export async function brotliBomb(gib = 16): Promise<Buffer> {
  const chunks = gib * 64; // 16 MiB each
  const encoder = zlib.createBrotliCompress({
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 3, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  let pending: Buffer[] = [];
  encoder.on('data', (c: Buffer) => pending.push(c));
  const take = (): Buffer => {
    const out = Buffer.concat(pending);
    pending = [];
    return out;
  };
  const zeros = Buffer.alloc(16 * MiB);
  const flushed = async (): Promise<Buffer> => {
    await new Promise<void>((resolve) => encoder.flush(zlib.constants.BROTLI_OPERATION_FLUSH, () => resolve()));
    return take();
  };
  encoder.write(zeros);
  const first = await flushed();
  encoder.write(zeros);
  const steady = await flushed();
  encoder.write(zeros);
  if (!(await flushed()).equals(steady)) throw new Error('brotli output did not settle; cannot build the bomb');
  encoder.end();
  await new Promise<void>((resolve) => encoder.once('end', () => resolve()));
  const last = take();
  return Buffer.concat([first, ...Array.from({ length: chunks - 1 }, () => steady), last]);
}

/** A valid multi-member gzip stream decoding to `mib` MiB of zero bytes (about 1 KB per MiB). */
export function gzipBomb(mib = 4096): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: mib }, () => member));
}
