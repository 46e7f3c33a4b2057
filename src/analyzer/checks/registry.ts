/**
 * The registry of page checks: every module of checks/page/ is one check (its default export,
 * the file named after the check's id), found by listing the folder when this module loads.
 * Adding a check is adding its file there; reports, the score, the catalogue,
 * `GET /api/v1/checks` and the share page take it from here.
 *
 * Both the main thread (identity, texts and formats, through definitions.ts) and the check
 * workers (the measurements, through run-checks.ts) load it, so a check module imports no
 * library loaded on first use (see helpers.ts).
 */
import { readdir } from 'node:fs/promises';
import { locales } from './catalogue/texts.ts';
import type { PageCategory, PageCheck } from './types.ts';

/**
 * The extension of the modules to load, chosen by this module's own (as check-pool.ts
 * chooses its worker): compiled, the `.js` files tsc wrote beside this one (not their source
 * maps); from the sources (tsx, vitest), the `.ts` files.
 */
const moduleExtension = import.meta.url.endsWith('.js') ? '.js' : '.ts';

const categories: ReadonlySet<string> = new Set<PageCategory>(['seo', 'performance', 'security', 'miscellaneous']);
const importances: ReadonlySet<string> = new Set(['high', 'medium', 'low']);

/** Why `check`, the default export of `file`, is not a page check; undefined when it is one. */
function problem(check: Partial<PageCheck> | undefined, file: string): string | undefined {
  if (!check || typeof check !== 'object') return 'has no default export';
  if (`${check.id}${moduleExtension}` !== file) return `exports id ${String(check.id)}, not its file's name`;
  if (!categories.has(check.category as string)) return `has category ${String(check.category)}`;
  if (!importances.has(check.importance as string)) return `has importance ${String(check.importance)}`;
  if (check.source !== 'page') return `has source ${String(check.source)}`;
  if (!Number.isFinite(check.order)) return 'has no order';
  if (typeof check.rendered !== 'boolean') return 'does not say whether it is rendered';
  if (typeof check.run !== 'function') return 'has no run function';
  if (!check.value?.unit || !check.value.format) return 'has no value format';
  for (const locale of locales) {
    const texts = check.texts?.[locale];
    if (!texts?.title || !texts.description || !texts.fix) return `has no title, description or fix in ${locale}`;
  }
  return undefined;
}

/**
 * The page checks of `folder` (a file URL ending in `/`), sorted by `order`. Throws, naming the
 * file, when a module is not a complete page check, or two share an id or an order.
 */
export async function loadPageChecks(folder: URL): Promise<PageCheck[]> {
  const files = (await readdir(folder)).filter((f) => f.endsWith(moduleExtension) && !f.endsWith('.d.ts')).sort();
  const checks = await Promise.all(
    files.map(async (file) => {
      const module = (await import(new URL(file, folder).href)) as { default?: PageCheck };
      const wrong = problem(module.default, file);
      if (wrong) throw new Error(`${new URL(file, folder).pathname} ${wrong}.`);
      return module.default!;
    }),
  );
  checks.sort((a, b) => a.order - b.order);
  for (let i = 1; i < checks.length; i++) {
    if (checks[i].order === checks[i - 1].order) {
      throw new Error(`Page checks ${checks[i - 1].id} and ${checks[i].id} share order ${checks[i].order}.`);
    }
  }
  return checks;
}

/** Every page check (checks/page/), in report order. */
export const pageChecks: readonly PageCheck[] = await loadPageChecks(new URL('./page/', import.meta.url));
