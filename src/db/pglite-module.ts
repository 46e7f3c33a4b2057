import { readFile } from 'node:fs/promises';

/**
 * PGlite 0.3 starts PostgreSQL with `shared_buffers=128MB` among arguments compiled into
 * pglite.wasm, and has no option to change them (`ALTER SYSTEM` and postgresql.conf lose to
 * the command line). Its start-up zeroes the whole buffer pool, so those 128 MB are resident
 * from the first second: over half of an embedded process's resident memory.
 *
 * PGlite does take a compiled `wasmModule` (a documented option). This module compiles PGlite's
 * own pglite.wasm with that one argument replaced in place by one of the same length, so
 * nothing else in the binary moves: PostgreSQL skips the leading space of `' 16MB'`. 16 MB
 * of buffers holds the embedded database's hot pages; the files themselves sit in the OS
 * page cache behind them. Decision record: docs/decisions/0004-embedded-database-buffers.md.
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
    return WebAssembly.compile(binary);
  })();
  return compiled;
}
