import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { renderSettingsFrom } from '../analyzer/render/settings.ts';
import { EngineReference } from './engine-reference.ts';

/**
 * The environment proof's engine for `config`: a Chromium of its own, set up like the
 * analyzer's (same binary, sandbox user, memory bound; analyzer/render/browser.ts) whether or
 * not pages are rendered, started on the first challenge. Undefined with CAPTCHA_ENGINE=never
 * or no Chromium binary: challenges then carry no layout.
 */
export function engineReferenceFrom(
  config: Parameters<typeof renderSettingsFrom>[0] & Pick<Config, 'CAPTCHA_ENGINE'>,
  warn: (message: string) => void,
): EngineReference | undefined {
  const settings = renderSettingsFrom(config);
  if (config.CAPTCHA_ENGINE === 'never' || !existsSync(settings.chromiumPath)) return undefined;
  // Loaded on first use: a process that never issues a challenge never carries the driver.
  let pool: Promise<import('../analyzer/render/browser.ts').BrowserPool> | undefined;
  const browserPool = () =>
    (pool ??= import('../analyzer/render/browser.ts').then(
      ({ BrowserPool }) =>
        new BrowserPool({
          executablePath: settings.chromiumPath,
          contexts: 1,
          maxHeapMb: settings.maxHeapMb,
          acquireTimeoutMs: 30_000,
          memoryLimitBytes: settings.memoryLimitBytes,
          sandboxUser: settings.sandboxUser,
          warn,
        }),
    ));
  const reference = new EngineReference({
    browser: async () => (await browserPool()).browser(),
    measureScript: async () => {
      const { bundleNamed } = await import('../bundles.ts');
      return (await bundleNamed('env-probes.js')).code.toString('utf8');
    },
    release: async () => {
      if (pool) await (await pool).close();
    },
    warn,
  });
  return reference;
}
