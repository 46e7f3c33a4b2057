#!/usr/bin/env node
// `npx auditcaptcha assert ...` (package.json `bin`; `npm run -s auditcaptcha -- assert ...` in a
// checkout): budgets and regressions for CI against a running service (src/ci/main.ts). Node
// runs it as it is (its TypeScript is type annotations only); compiled to dist/bin/auditcaptcha.js.
import { main } from '../src/ci/main.ts';

process.exitCode = await main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`auditcaptcha: ${err instanceof Error ? err.message : String(err)}\n`);
  return 2;
});
