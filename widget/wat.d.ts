/** A .wat import is its WebAssembly binary, compiled at bundle time (src/bundles.ts). */
declare module '*.wat' {
  const bytes: Uint8Array<ArrayBuffer>;
  export default bytes;
}
