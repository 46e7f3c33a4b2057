// `npm run bench`: runs every benchmark in turn and prints its figures. Each also runs alone:
// npx tsx bench/<name>.ts. Pass names to run a subset: npm run bench -- siteverify asset
const all = [
  'analyzer',
  'asset',
  'siteverify',
  'hotpaths',
  'reports-list',
  'reports-list-results',
  'ocr',
  'lighthouse',
  'lighthouse-a11y',
  'adversary',
  'surge',
  'adversary-score',
  'site-audit',
  'report-latency',
  'gateway',
] as const;

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : all;
let failed = 0;
for (const name of names) {
  if (!(all as readonly string[]).includes(name)) {
    console.error(`unknown benchmark ${name}; choose from ${all.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench/${name}.ts`);
  try {
    const mod = (await import(`./${name}.ts`)) as { main?: () => Promise<unknown> };
    if (!mod.main) throw new Error('exports no main()');
    await mod.main();
  } catch (err) {
    failed++;
    console.error(`bench/${name}.ts failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
process.exit(failed ? 1 : 0);
