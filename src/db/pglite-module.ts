import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';

/**
 * PGlite 0.3 starts PostgreSQL with `shared_buffers=128MB` among arguments compiled into
 * pglite.wasm, and has no option to change them (`ALTER SYSTEM` and postgresql.conf lose to
 * the command line). Its start-up zeroes the whole buffer pool, so those 128 MB are resident
 * from the first second: over half of an embedded process's memory (bench/hotpaths rss).
 *
 * PGlite does take a compiled `wasmModule` (a documented option). This module compiles PGlite's
 * own pglite.wasm with that one argument replaced in place by one of the same length, so
 * nothing else in the binary moves: PostgreSQL skips the leading space of `' 16MB'`. 16 MB
 * of buffers holds the embedded database's hot pages; the files themselves sit in the OS
 * page cache behind them.
 *
 * It is also compiled by V8's baseline compiler only (Liftoff). By default V8 recompiles hot
 * WASM functions with its optimising compiler, and PostgreSQL's start-up (initdb above all)
 * makes most of them hot: about 95 MB more resident code, while queries ran no faster in our
 * measurements (inserts, lookups by key and trigram counts on PGlite, flags on and off) and the
 * first start took 2.4-2.9 s against 1.2 s.
 */
const STOCK_ARGUMENT = 'shared_buffers=128MB';
export const EMBEDDED_SHARED_BUFFERS = '16MB';
const EMBEDDED_ARGUMENT = `shared_buffers=${EMBEDDED_SHARED_BUFFERS.padStart(5)}`;

let compiled: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * The compiled PGlite module with the smaller buffer pool, compiled once per process; or
 * `undefined` (PGlite then loads its stock module) when the binary does not hold the stock
 * argument exactly once, as a PGlite with other defaults would not.
 */
export function embeddedWasmModule(): Promise<WebAssembly.Module | undefined> {
  compiled ??= (async () => {
    const binary = await readFile(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')));
    const at = binary.indexOf(STOCK_ARGUMENT);
    if (at < 0 || binary.indexOf(STOCK_ARGUMENT, at + 1) >= 0) return undefined;
    binary.write(EMBEDDED_ARGUMENT, at, 'latin1');
    return compileBaselineOnly(binary);
  })();
  return compiled;
}

/**
 * Compiles with `--liftoff-only` on. V8 reads the flag when it compiles a module, and the module
 * keeps what it was compiled with, so the flag is turned back off afterwards (unless the
 * process was started with it) and WASM compiled later (undici's HTTP parser) is tiered as usual.
 */
async function compileBaselineOnly(binary: Buffer<ArrayBuffer>): Promise<WebAssembly.Module> {
  const givenAtStart = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(
    '--liftoff-only',
  );
  v8.setFlagsFromString('--liftoff-only');
  try {
    return await WebAssembly.compile(binary);
  } finally {
    if (!givenAtStart) v8.setFlagsFromString('--no-liftoff-only');
  }
}
