/**
 * No regex in the service can backtrack super-linearly: every regex literal and every
 * `RegExp(...)` / `new RegExp(...)` with a literal pattern in src/, routers/, facade/ and bin/
 * is checked with recheck (its pure-JS backend, run synchronously), and any "vulnerable" (or
 * undecided) verdict fails. A RegExp built from a non-literal pattern fails too: its safety
 * cannot be checked here. Site owners' gateway patterns are no RegExp: re2js matches them in
 * linear time (src/gateway/patterns.ts; test/gateway/patterns.test.ts times the catastrophic
 * ones).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scanned = ['src', 'routers', 'facade', 'bin'];

interface FoundRegex {
  where: string;
  source: string;
  flags: string;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) yield full;
  }
}

function literalText(node: ts.Expression | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

/** Every regex of the scanned folders, with the constructor calls whose pattern is not a literal. */
function collectRegexes(): { regexes: FoundRegex[]; dynamic: string[] } {
  const regexes: FoundRegex[] = [];
  const dynamic: string[] = [];
  for (const folder of scanned) {
    const dir = path.join(root, folder);
    if (!existsSync(dir)) continue;
    for (const file of sourceFiles(dir)) {
      const rel = path.relative(root, file);
      const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const where = (node: ts.Node) => `${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
      const visit = (node: ts.Node): void => {
        if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
          const text = node.getText(sf);
          const slash = text.lastIndexOf('/');
          regexes.push({ where: where(node), source: text.slice(1, slash), flags: text.slice(slash + 1) });
        } else if (
          (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
          ts.isIdentifier(node.expression) &&
          node.expression.text === 'RegExp'
        ) {
          const source = literalText(node.arguments?.[0]);
          const flags = node.arguments?.[1] ? literalText(node.arguments[1]) : '';
          if (source === undefined || flags === undefined) dynamic.push(where(node));
          else regexes.push({ where: where(node), source, flags });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return { regexes, dynamic };
}

describe('regex safety', () => {
  it('finds the regexes of the service (the scan itself works)', () => {
    const { regexes } = collectRegexes();
    expect(regexes.length).toBeGreaterThan(20);
    expect(regexes.some((r) => r.where.startsWith('src/analyzer/'))).toBe(true);
  });

  it('recheck flags the patterns that froze the service', () => {
    process.env['RECHECK_SYNC_BACKEND'] = 'pure';
    const doctype = checkSync(String.raw`^\uFEFF?\s*(?:<!--[\s\S]*?-->\s*)*(<!doctype\s+html[^>]*>)`, 'i', {
      timeout: 20_000,
    });
    expect(doctype.status).toBe('vulnerable');
    const quadratic = checkSync(String.raw`\d+\.\d+|\/\s*\d`, '', { timeout: 20_000 });
    expect(quadratic.status).toBe('vulnerable');
  });

  it(
    'no regex literal or RegExp in src/, routers/, facade/ or bin/ is vulnerable to ReDoS',
    { timeout: 600_000 },
    () => {
      process.env['RECHECK_SYNC_BACKEND'] = 'pure';
      const { regexes, dynamic } = collectRegexes();
      const problems: string[] = dynamic.map((where) => `${where}: RegExp built from a non-literal pattern`);
      for (const regex of regexes) {
        const verdict = checkSync(regex.source, regex.flags, { timeout: 20_000 });
        if (verdict.status === 'safe') continue;
        const why =
          verdict.status === 'vulnerable'
            ? `${verdict.complexity.summary}, attack ${JSON.stringify(verdict.attack.pattern)}`
            : `undecided (${verdict.error.kind})`;
        problems.push(`${regex.where}: /${regex.source}/${regex.flags} is ${verdict.status}: ${why}`);
      }
      expect(problems).toEqual([]);
    },
  );
});
