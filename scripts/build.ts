// `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json) and builds
// every browser bundle that src/bundles.ts lists into dist/public/, and the proof of work's
// WebAssembly into dist/pow/walk.wasm, so `npm start` runs plain JavaScript with no
// transpiler, bundler or WebAssembly text compiler in the serving process.
//   npx tsx scripts/build.ts [--out-dir DIR]   (default dist)
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGET_ENTRIES, buildWidgetEntry } from '../src/bundles.ts';
import { compileWat, WALK_WAT } from '../pow/compile.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function build(outDir = path.join(root, 'dist')): Promise<void> {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    tsc,
    '-p',
    path.join(root, 'tsconfig.build.json'),
    '--outDir',
    outDir,
    '--tsBuildInfoFile',
    path.join(outDir, '.tsbuildinfo'),
  ];
  const compiled = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) throw new Error(`tsc failed with ${compiled.status ?? compiled.signal}`);
  writeFileSync(path.join(outDir, 'pow', 'walk.wasm'), await compileWat(WALK_WAT));
  // Data the service reads at run time beside its module (the hosting networks: src/net/hosting.ts).
  cpSync(path.join(root, 'src', 'net', 'hosting-asns.csv'), path.join(outDir, 'src', 'net', 'hosting-asns.csv'));
  const publicDir = path.join(outDir, 'public');
  mkdirSync(publicDir, { recursive: true });
  for (const entry of WIDGET_ENTRIES) {
    const code = await buildWidgetEntry(entry);
    writeFileSync(path.join(publicDir, entry.name), code);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--out-dir');
  const outDir = at > 0 ? path.resolve(process.argv[at + 1]) : undefined;
  const started = performance.now();
  try {
    await build(outDir);
    console.log(
      `built ${path.relative(process.cwd(), outDir ?? path.join(root, 'dist')) || '.'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (err) {
    console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
