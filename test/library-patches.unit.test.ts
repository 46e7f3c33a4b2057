// The patches under patches/ (applied by npm's postinstall with patch-package) are in the
// installed libraries, and what they touch behaves as before: docs/decisions/0022.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initTRPC } from '@trpc/server';
import Router from '@koa/router';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/** The files beside a package's CommonJS entry (its dist/) whose names match `name`, read whole. */
function distFiles(pkg: string, name: RegExp): Array<{ file: string; text: string }> {
  const dir = path.dirname(require.resolve(pkg));
  return readdirSync(dir)
    .filter((f) => name.test(f))
    .map((f) => ({ file: f, text: readFileSync(path.join(dir, f), 'utf8') }));
}

describe('@trpc/server: the middleware chain with native object spread', () => {
  it('is what the installed build runs, ESM and CommonJS alike', () => {
    const builds = distFiles('@trpc/server', /^initTRPC-.*\.(mjs|cjs)$/);
    expect(builds.map((b) => path.extname(b.file)).sort()).toEqual(['.cjs', '.mjs']);
    for (const { file, text } of builds) {
      expect(text, file).toContain('return await middleware({\n\t\t\t...opts,');
      expect(text, file).toContain('return callRecursive(index + 1, _def, {\n\t\t\t\t\t...opts,');
      // The transpiled helper on every step of every call: 8 µs a step where native spread takes 0.3.
      expect(text, file).not.toMatch(/await middleware\(\S*_objectSpread2/);
      expect(text, file).not.toMatch(/callRecursive\(index \+ 1, _def, \S*_objectSpread2/);
    }
  });

  it('still merges the context and the inputs of each step, as tRPC documents', async () => {
    const t = initTRPC.context<{ base: string }>().create();
    const procedure = t.procedure
      .use(({ next }) => next({ ctx: { added: 1 } }))
      .input(z.object({ a: z.string() }))
      .input(z.looseObject({ b: z.string() }))
      .query(({ ctx, input }) => ({ ctx, input, proto: Object.getPrototypeOf(input) === Object.prototype }));
    const caller = t.createCallerFactory(t.router({ procedure }))({ base: 'x' });
    // A body's own `__proto__` key stays data: spread defines it, where an assignment would
    // have set the merged input's prototype.
    const answer = await caller.procedure(JSON.parse('{"a":"1","b":"2","__proto__":{"polluted":true}}') as never);
    expect(answer.ctx).toEqual({ base: 'x', added: 1 });
    expect(answer.input).toMatchObject({ a: '1', b: '2' });
    expect(answer.proto).toBe(true);
    expect((answer.input as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("@koa/router: match reads debug's switch once, not once a layer", () => {
  it('is what the installed build runs', () => {
    for (const { file, text } of distFiles('@koa/router', /^index\.(mjs|js)$/)) {
      expect(text, file).toContain('const tracing = debug.enabled;');
      expect(text, file).toContain('if (tracing) debug("test %s %s", layer.path, layer.regexp);');
    }
  });

  it('matches as before', () => {
    const router = new Router();
    router.get('/a/:id', () => undefined);
    router.post('/b', () => undefined);
    const matched = router.match('/a/7', 'GET');
    expect(matched.route).toBe(true);
    expect(matched.pathAndMethod.map((l) => l.path)).toEqual(['/a/:id']);
    expect(router.match('/b', 'GET').route).toBe(false);
  });

  it('still traces each layer it tests when DEBUG names koa-router', () => {
    const script = `const Router = require('@koa/router'); const r = new Router(); r.get('/a', () => {}); r.get('/b', () => {}); r.match('/b', 'GET');`;
    const run = (debug: string) =>
      spawnSync(process.execPath, ['-e', script], {
        env: { ...process.env, DEBUG: debug, DEBUG_COLORS: 'no' },
        encoding: 'utf8',
        timeout: 20_000,
      }).stderr;
    const traced = run('koa-router');
    expect(traced).toContain('test /a');
    expect(traced).toContain('test /b');
    expect(run('')).not.toContain('test /');
  });
});
