/**
 * One Chromium process, reused, with a bounded pool of browser contexts.
 *
 * The browser is Debian's Chromium at a configured path, driven by playwright-core (never a
 * downloaded browser). It is launched on first use; when it crashes or is killed, the analyses
 * that were inside it get {@link BrowserCrashedError} and the next acquisition launches a new
 * one, so other analyses carry on. Each context gets its own proxy (the analysis' guarded
 * proxy); the launch-level proxy refuses everything, so nothing outside a context goes out.
 *
 * Chromium runs with its sandbox on, as an unprivileged user when the service is root, inside
 * a memory cgroup of its own (see sandbox.ts). When the sandbox cannot start, the launch fails
 * with {@link SandboxUnavailableError} and rendering stays off; it never runs unsandboxed. A
 * browser that does not start within `startTimeoutMs` turns rendering off the same way.
 *
 * Every wait here (a free context, the browser's start, a warm context) ends when the
 * caller's signal aborts: the launch goes on for the others, and the caller is free.
 */
import { readFile, rm } from 'node:fs/promises';
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core';
import { AddressGuard } from '../address-guard.ts';
import { abortable } from '../abortable.ts';
import { startGuardedProxy, type GuardedProxy, type GuardedProxySettings } from './proxy.ts';
import { disposeContext, SpareContexts, type PreparedContext } from './spare-contexts.ts';
import { createBrowserCgroup, writeLauncher, type BrowserCgroup, type Launcher } from './sandbox.ts';

/** How the browser pool runs. */
export interface BrowserPoolSettings {
  /** Chromium executable (Debian's `/usr/bin/chromium`). */
  executablePath: string;
  /** Contexts (pages) rendering at once. */
  contexts: number;
  /** V8 heap limit of each renderer, MiB; a page above it crashes its renderer only. */
  maxHeapMb: number;
  /** Longest wait for a free context before giving up, ms. */
  acquireTimeoutMs: number;
  /** The user Chromium runs as when the service runs as root. Default `nobody`. */
  sandboxUser?: string;
  /** Memory the whole browser (every process) may use, bytes, enforced by a cgroup when one can be made. */
  memoryLimitBytes?: number;
  /**
   * Longest a launch may take, ms (default 30 s): past it the browser is stopped and rendering
   * is off for the process, said once through `warn`.
   */
  startTimeoutMs?: number;
  /** Told once when the browser cannot be bounded or sandboxed (the service logs it). */
  warn?: (message: string) => void;
}

/** Rendering is off for the process: the browser could not start (its sandbox, or in time). */
export class BrowserUnavailableError extends Error {
  override name = 'BrowserUnavailableError';
}

/** Chromium could not start with its sandbox on: rendering is off, never unsandboxed. */
export class SandboxUnavailableError extends BrowserUnavailableError {
  override name = 'SandboxUnavailableError';
}

/** The browser went away while a page was rendering. */
export class BrowserCrashedError extends Error {
  override name = 'BrowserCrashedError';
}

/** No context became free in time. */
export class RenderBusyError extends Error {
  override name = 'RenderBusyError';
}

/** Flags Chromium runs with (besides those playwright-core adds). */
export const chromiumFlags = [
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--disable-default-apps',
  '--mute-audio',
  // WebRTC could otherwise send UDP (STUN/TURN) around the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-features=DnsOverHttps,NetworkPrediction,PreloadMediaEngagementData,AutofillServerCommunication',
];

/**
 * Flags playwright-core adds in headless mode that we take out: `--hide-scrollbars` would hide
 * the scrollbar a visitor sees, and the layout shift its arrival causes (Lighthouse shows it);
 * `--disable-popup-blocking` would let pages open windows (render.ts closes those that open).
 */
export const removedDefaultFlags = ['--hide-scrollbars', '--disable-popup-blocking'];

/**
 * Desktop Chrome's User-Agent for a browser `version` ("131.0.6778.85"), in Chrome's reduced
 * form (minor numbers zeroed) on Linux: what a visitor's browser sends, so a page serves the
 * markup visitors get, as Lighthouse's desktop preset does. The analyzer's own name stays on
 * its raw fetch of the page, robots.txt and the sitemap (AnalyzerOptions.userAgent).
 */
export function desktopUserAgent(version: string): string {
  const major = /^\d+/.exec(version)?.[0] ?? '131';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

/** Proxy settings that let nothing out: the launch-level proxy's, and a spare context's until it is taken. */
function refuseAll(): GuardedProxySettings {
  return {
    guard: new AddressGuard({
      allowPrivate: false,
      isAllowedAddress: () => false,
      lookup: () => Promise.reject(new Error('nothing goes out outside an analysis')),
    }),
    connectTimeoutMs: 1000,
    maxBytes: 0,
  };
}

interface Waiter {
  resolve: () => void;
  /** Takes the waiter out of the queue and rejects it. */
  leave: (reason: Error) => void;
}

/** A shared Chromium with at most `contexts` contexts open. */
export class BrowserPool {
  readonly #settings: BrowserPoolSettings;
  #browser?: Promise<Browser>;
  #current?: Browser;
  #denyAll?: GuardedProxy;
  #active = 0;
  readonly #waiters: Waiter[] = [];
  readonly #spares: SpareContexts;
  #launches = 0;
  #closed = false;
  #launcher?: Launcher;
  #cgroup?: BrowserCgroup;
  #cgroupTried = false;
  /** Set once the browser failed to start (sandbox, time): every later render fails at once with it. */
  #unavailable?: BrowserUnavailableError;

  constructor(settings: BrowserPoolSettings) {
    this.#settings = settings;
    this.#spares = new SpareContexts(settings.contexts, refuseAll);
  }

  /** How many times a browser was launched (a crash makes the next use launch another). */
  get launches(): number {
    return this.#launches;
  }

  /** Contexts in use now. */
  get active(): number {
    return this.#active;
  }

  /** The memory cgroup of the browser, once it is launched (undefined where none could be made). */
  get cgroup(): BrowserCgroup | undefined {
    return this.#cgroup;
  }

  /**
   * The running browser, launching it if needed. Rejects with {@link BrowserUnavailableError}
   * once rendering is off.
   */
  browser(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new Error('The browser pool is closed.'));
    if (this.#unavailable) return Promise.reject(this.#unavailable);
    this.#browser ??= this.#launch().catch((err: unknown) => {
      this.#browser = undefined;
      throw err;
    });
    return this.#browser;
  }

  async #launch(): Promise<Browser> {
    // The launch-level proxy: an address guard that allows nothing.
    this.#denyAll ??= await startGuardedProxy(refuseAll());
    this.#launcher ??= await writeLauncher();
    if (!this.#cgroupTried) {
      this.#cgroupTried = true;
      const limit = this.#settings.memoryLimitBytes;
      if (limit) {
        this.#cgroup = await createBrowserCgroup(limit, `auditcaptcha-browser-${process.pid}`);
        if (!this.#cgroup) {
          this.#settings.warn?.(
            'No memory cgroup could be made for Chromium (no writable cgroup v1 or v2 memory controller): the browser has only its V8 heap limit.',
          );
        }
      }
    }
    let browser: Browser;
    const startTimeoutMs = this.#settings.startTimeoutMs ?? 30_000;
    await rm(this.#launcher.pidFile, { force: true });
    try {
      browser = await chromium.launch({
        executablePath: this.#launcher.path,
        env: {
          ...process.env,
          AUDIT_CHROMIUM_BINARY: this.#settings.executablePath,
          AUDIT_CHROMIUM_USER: this.#settings.sandboxUser ?? 'nobody',
          AUDIT_CHROMIUM_CGROUP: this.#cgroup?.dir ?? '',
          AUDIT_CHROMIUM_PIDFILE: this.#launcher.pidFile,
        },
        headless: true,
        chromiumSandbox: true,
        args: [...chromiumFlags, `--js-flags=--max-old-space-size=${this.#settings.maxHeapMb}`],
        ignoreDefaultArgs: removedDefaultFlags,
        proxy: { server: this.#denyAll.url, bypass: '<-loopback>' },
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        // Past it Playwright stops the process (its whole group) and rejects with a TimeoutError.
        timeout: startTimeoutMs,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof Error && err.name === 'TimeoutError' && !this.#closed) {
        await this.#stopUnstarted();
        this.#unavailable = new BrowserUnavailableError(
          `Rendering is off: Chromium (${this.#settings.executablePath}) did not start within ${startTimeoutMs} ms.`,
          { cause: err },
        );
        this.#settings.warn?.(this.#unavailable.message);
        throw this.#unavailable;
      }
      if (/sandbox/i.test(message)) {
        this.#unavailable = new SandboxUnavailableError(
          'Rendering is off: Chromium could not start its sandbox (user namespaces or a setuid sandbox are needed; it is never run without one).',
          { cause: err },
        );
        this.#settings.warn?.(this.#unavailable.message);
        throw this.#unavailable;
      }
      throw err;
    }
    this.#launches++;
    this.#current = browser;
    browser.on('disconnected', () => {
      // Forget it only if it is still the current one (a relaunch may have happened).
      if (this.#current === browser) {
        this.#current = undefined;
        this.#browser = undefined;
      }
    });
    return browser;
  }

  /**
   * Kills the process group of a launch that timed out. Playwright only asks it to close and
   * kills it 30 s later, and the hung browser would hold its memory that long (or, in a
   * process that exits first, for ever).
   */
  async #stopUnstarted(): Promise<void> {
    const pid = Number((await readFile(this.#launcher!.pidFile, 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 1) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** A context slot: at once when one is free, else in turn, at most `acquireTimeoutMs` or until `signal` aborts. */
  async #acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active < this.#settings.contexts) {
      this.#active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => waiter.leave(signal!.reason as Error);
      const timer = setTimeout(
        () => waiter.leave(new RenderBusyError('No browser context became free in time.')),
        this.#settings.acquireTimeoutMs,
      );
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        resolve: () => {
          settle();
          resolve();
        },
        leave: (reason) => {
          const i = this.#waiters.indexOf(waiter);
          if (i < 0) return;
          this.#waiters.splice(i, 1);
          settle();
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    if (next) {
      next.resolve(); // the slot passes on
    } else {
      this.#active--;
    }
  }

  /**
   * Run `fn` in a context of its own, with service workers blocked, sending
   * `options.userAgent` (default {@link desktopUserAgent} of the running browser), its traffic
   * through a guarded proxy with `proxySettings`. The context comes warm from
   * {@link SpareContexts}, with its one page open, and is closed afterwards. If the browser dies
   * meanwhile, rejects with {@link BrowserCrashedError}. When `bounds.waits` aborts before `fn`
   * starts, the waits (a context slot, the browser's start, a warm context) end with its
   * reason; when `bounds.signal` aborts, the waits and `fn` itself do, and the context is closed.
   */
  async withContext<T>(
    options: { userAgent?: string; viewport?: { width: number; height: number } },
    proxySettings: GuardedProxySettings,
    fn: (prepared: PreparedContext) => Promise<T>,
    bounds: { waits?: AbortSignal; signal?: AbortSignal } = {},
  ): Promise<T> {
    const { signal } = bounds;
    const waits = bounds.waits && signal ? AbortSignal.any([bounds.waits, signal]) : (bounds.waits ?? signal);
    await this.#acquire(waits);
    let prepared: PreparedContext | undefined;
    let contextOptions: BrowserContextOptions = {};
    let browser: Browser | undefined;
    let onDisconnect: (() => void) | undefined;
    try {
      browser = await abortable(this.browser(), waits);
      // Calls pending on a browser that died may never settle: race them with its death.
      const died = new Promise<never>((_, reject) => {
        onDisconnect = () => reject(new BrowserCrashedError('The browser stopped while rendering the page.'));
        browser!.once('disconnected', onDisconnect);
        if (!browser!.isConnected()) onDisconnect();
      });
      died.catch(() => undefined);
      contextOptions = {
        serviceWorkers: 'block',
        userAgent: options.userAgent ?? desktopUserAgent(browser.version()),
        viewport: options.viewport ?? { width: 1350, height: 940 },
        deviceScaleFactor: 1,
        acceptDownloads: false,
        javaScriptEnabled: true,
        bypassCSP: false,
      };
      prepared = await Promise.race([died, this.#spares.take(browser, contextOptions, waits)]);
      prepared.proxy.assign(proxySettings);
      return await Promise.race([died, abortable(fn(prepared), signal)]);
    } catch (err) {
      if (browser && !browser.isConnected() && !(err instanceof BrowserCrashedError)) {
        throw new BrowserCrashedError('The browser stopped while rendering the page.', { cause: err });
      }
      throw err;
    } finally {
      if (browser && onDisconnect) browser.off('disconnected', onDisconnect);
      if (prepared) await disposeContext(prepared);
      if (browser?.isConnected() && !this.#closed) this.#spares.fill(browser, contextOptions);
      this.#release();
    }
  }

  /** Close the spare contexts, the browser and the deny-all proxy. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#spares.close();
    const browser = this.#browser;
    this.#browser = undefined;
    if (browser) await browser.then((b) => b.close()).catch(() => undefined);
    await this.#denyAll?.close();
    this.#denyAll = undefined;
    await this.#launcher?.remove();
    await this.#cgroup?.remove();
  }
}
