/**
 * A real person's browser, as issue 27's threat model defines one: Debian's Chromium, headed,
 * on a virtual X display (Xvfb), started as a plain process with no remote-debugging port, no
 * DevTools protocol and no WebDriver, so the page sees exactly what it would see on a desk.
 * It is moved, clicked and typed into only through X input events (xdotool), and nothing is
 * read from it: the page under test reports back to the test's own server on 127.0.0.1 (by
 * `fetch` or a form post), and {@link Person.waitFor} waits on what it posted.
 *
 * Every wait has a deadline; {@link Person.close} kills the browser's process group, stops an
 * Xvfb this helper started, and removes the profile.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

const XVFB = '/usr/bin/Xvfb';
const XDOTOOL = '/usr/bin/xdotool';
const CHROMIUM_BIN = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FIREFOX_BIN = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
/** Whether this machine can run a person: Chromium, Xvfb and xdotool installed. */
export const personMissing = ![XVFB, XDOTOOL, CHROMIUM_BIN].every((f) => existsSync(f));
/** Whether this machine can run a person in Firefox ESR. */
export const firefoxPersonMissing = ![XVFB, XDOTOOL, FIREFOX_BIN].every((f) => existsSync(f));

/** A first-run-free Firefox profile: no welcome page, default-browser or data-reporting prompt over the page. */
const FIREFOX_PREFS = [
  'user_pref("browser.shell.checkDefaultBrowser", false);',
  'user_pref("browser.startup.homepage_override.mstone", "ignore");',
  'user_pref("browser.aboutwelcome.enabled", false);',
  'user_pref("datareporting.policy.dataSubmissionPolicyBypassNotification", true);',
  'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);',
  'user_pref("browser.tabs.warnOnClose", false);',
].join('\n');

/** One X display: its number and, when this helper started it, the Xvfb process. */
interface Display {
  name: string;
  xvfb?: ChildProcess;
}

/** The first display number from 90 with no lock file, served by a new Xvfb; or `PERSON_DISPLAY` reused. */
async function openDisplay(deadlineMs: number): Promise<Display> {
  if (process.env.PERSON_DISPLAY) return { name: process.env.PERSON_DISPLAY };
  for (let n = 90 + (process.pid % 50); n < 200; n++) {
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    const xvfb = spawn(XVFB, [`:${n}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: 'ignore',
      detached: true,
    });
    const exited = new Promise<boolean>((r) => xvfb.once('exit', () => r(true)));
    const until = Date.now() + deadlineMs;
    while (Date.now() < until) {
      if (existsSync(`/tmp/.X11-unix/X${n}`)) return { name: `:${n}`, xvfb };
      if (await Promise.race([exited, sleep(50).then(() => false)])) break;
    }
    if (xvfb.exitCode === null) xvfb.kill('SIGKILL');
  }
  throw new Error('no X display: Xvfb did not start on any free display number');
}

/** Each process's CPU seconds (user + system) and parent, from /proc. */
function processTable(): { parents: Map<number, number>; cpu: Map<number, number> } {
  const tick = 100; // USER_HZ on Linux
  const parents = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      cpu.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / tick);
    } catch {
      // the process ended while we looked
    }
  }
  return { parents, cpu };
}

/** The first of `roots` that `pid` is or descends from; undefined for none. */
function rootOf(pid: number, parents: Map<number, number>, roots: ReadonlySet<number>): number | undefined {
  for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = parents.get(p), hops++)
    if (roots.has(p)) return p;
  return undefined;
}

/** CPU seconds (user + system) of a process and its live descendants, from /proc. */
export function treeCpuSeconds(rootPid: number): number {
  const { parents, cpu } = processTable();
  let total = 0;
  for (const [pid, s] of cpu) if (rootOf(pid, parents, new Set([rootPid])) !== undefined) total += s;
  return total;
}

/**
 * CPU seconds of this process's child processes started after it was created (the attackers'
 * browsers, not the in-process service's own Chromium that was already running), and of their
 * descendants. A process that exits keeps the time last sampled for it, so the figure never
 * goes back; time a process spends after its last sample and before it exits is not counted.
 */
export class ChildCpu {
  readonly #excluded = new Set<number>();
  readonly #seen = new Map<number, number>();

  constructor() {
    const { parents } = processTable();
    for (const [pid, parent] of parents) if (parent === process.pid) this.#excluded.add(pid);
  }

  /** The total so far. */
  sample(): number {
    const { parents, cpu } = processTable();
    const self = new Set([process.pid]);
    for (const [pid, s] of cpu) {
      if (pid === process.pid || rootOf(pid, parents, self) === undefined) continue;
      if (rootOf(pid, parents, this.#excluded) !== undefined) continue;
      this.#seen.set(pid, Math.max(s, this.#seen.get(pid) ?? 0));
    }
    let total = 0;
    for (const s of this.#seen.values()) total += s;
    return total;
  }
}

export interface PersonOptions {
  /** How long to wait for the display and the browser's window. */
  startTimeoutMs?: number;
  /** Window size; the page is laid out at this size less the browser's own chrome. */
  width?: number;
  height?: number;
  /** Debian's Chromium (the default) or Firefox ESR, each started as a person starts it. */
  browser?: 'chromium' | 'firefox';
}

export interface Person {
  /** The display the browser is on (e.g. `:91`). */
  display: string;
  /** The browser's process id (its process group leader). */
  pid: number;
  /** CPU seconds the browser's processes have used so far. */
  cpuSeconds(): number;
  /** Resolves with the first value `check` returns that is not undefined; rejects after `timeoutMs`. */
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what?: string): Promise<T>;
  /** Presses a key (xdotool key names: Tab, space, Return, shift+Tab), with a person's pause after it. */
  key(name: string): Promise<void>;
  /** Types text, a key at a time, at a person's pace. */
  type(text: string): Promise<void>;
  /** Moves the pointer through each point (screen pixels) in small steps. */
  moveAlong(points: Array<[number, number]>): Promise<void>;
  /** Moves to a point along a gentle path and clicks the left button there. */
  clickAt(x: number, y: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `url` in a headed Chromium on a virtual display, the way a person's browser is started.
 * Chromium as root needs `--no-sandbox`; Xvfb has no GPU, so `--disable-gpu`, and
 * `--ozone-platform=x11` keeps it off Wayland.
 */
export async function startPerson(url: string, opts: PersonOptions = {}): Promise<Person> {
  const startTimeout = opts.startTimeoutMs ?? 20_000;
  const display = await openDisplay(startTimeout);
  const profile = mkdtempSync(path.join(os.tmpdir(), 'person-profile-'));
  const env = { ...process.env, DISPLAY: display.name };
  /** Starts Chromium; its last 4 KB of stderr are kept, to say why if it exits at start. */
  let stderrTail = '';
  const firefox = opts.browser === 'firefox';
  if (firefox) writeFileSync(path.join(profile, 'user.js'), FIREFOX_PREFS);
  const firefoxArgs = [
    '--no-remote',
    '--profile',
    profile,
    '-width',
    String(opts.width ?? 1200),
    '-height',
    String(opts.height ?? 900),
    url,
  ];
  const launch = () => {
    const child = spawn(
      firefox ? FIREFOX_BIN : CHROMIUM_BIN,
      firefox
        ? firefoxArgs
        : [
            '--no-sandbox',
            '--disable-gpu',
            '--ozone-platform=x11',
            `--user-data-dir=${profile}`,
            '--no-first-run',
            '--no-default-browser-check',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--password-store=basic',
            '--window-position=0,0',
            `--window-size=${opts.width ?? 1200},${opts.height ?? 900}`,
            url,
          ],
      { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString()).slice(-4096);
    });
    return child;
  };
  let browser = launch();
  let pid = browser.pid!;
  let pointer: [number, number] = [600, 450];
  const xdo = async (...args: string[]) => {
    await run(XDOTOOL, args, { env, timeout: 10_000 });
  };

  const close = async () => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const gone = new Promise<void>((r) => (browser.exitCode !== null ? r() : browser.once('exit', () => r())));
    await Promise.race([gone, sleep(5000)]);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    if (display.xvfb && display.xvfb.exitCode === null) {
      const xgone = new Promise<void>((r) => display.xvfb!.once('exit', () => r()));
      display.xvfb.kill('SIGTERM');
      await Promise.race([xgone, sleep(3000)]);
      if (display.xvfb.exitCode === null) display.xvfb.kill('SIGKILL');
    }
    rmSync(profile, { recursive: true, force: true });
  };

  const person: Person = {
    display: display.name,
    get pid() {
      return pid;
    },
    cpuSeconds: () => treeCpuSeconds(pid),
    async waitFor<T>(check: () => T | undefined, timeoutMs: number, what = 'the page') {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const value = check();
        if (value !== undefined) return value;
        if (browser.exitCode !== null) throw new Error(`Chromium exited (${browser.exitCode}) waiting for ${what}`);
        if (Date.now() > until) throw new Error(`no ${what} within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async key(name) {
      await xdo('key', '--clearmodifiers', name);
      await sleep(120 + Math.random() * 180);
    },
    async type(text) {
      await xdo('type', '--delay', String(90 + Math.round(Math.random() * 60)), text);
    },
    async moveAlong(points) {
      for (const [x, y] of points) {
        const [fx, fy] = pointer;
        const steps = Math.max(4, Math.ceil(Math.hypot(x - fx, y - fy) / 25));
        for (let i = 1; i <= steps; i++) {
          // A slight curve and jitter: a hand, not a straight line of equal steps.
          const t = i / steps;
          const bend = Math.sin(t * Math.PI) * 12;
          const px = Math.round(fx + (x - fx) * t + bend + (i < steps ? Math.random() * 2 - 1 : 0));
          const py = Math.round(fy + (y - fy) * t - bend / 2 + (i < steps ? Math.random() * 2 - 1 : 0));
          await xdo('mousemove', String(i === steps ? x : px), String(i === steps ? y : py));
          await sleep(8 + Math.random() * 14);
        }
        pointer = [x, y];
      }
    },
    async clickAt(x, y) {
      await person.moveAlong([[x, y]]);
      await sleep(80 + Math.random() * 120);
      await xdo('click', '1');
      await sleep(150);
    },
    close,
  };
  try {
    // The window is there when xdotool finds one for the browser's pid; then it gets focus.
    const until = Date.now() + startTimeout;
    let window = '';
    let launches = 1;
    while (!window) {
      if (browser.exitCode !== null) {
        // On a loaded machine Chromium now and then exits at once on a display just made: once more.
        if (launches++ < 2) {
          browser = launch();
          pid = browser.pid!;
          continue;
        }
        throw new Error(`Chromium exited (${browser.exitCode}) at start:\n${stderrTail}`);
      }
      if (Date.now() > until) throw new Error(`no Chromium window on ${display.name} within ${startTimeout} ms`);
      window = await run(XDOTOOL, ['search', '--onlyvisible', '--class', firefox ? 'firefox' : 'chromium'], {
        env,
        timeout: 5000,
      })
        .then((r) => r.stdout.trim().split('\n')[0] ?? '')
        .catch(() => '');
      if (!window) await sleep(200);
    }
    await xdo('windowactivate', '--sync', window).catch(() => xdo('windowfocus', window));
    return person;
  } catch (err) {
    await close();
    throw err;
  }
}
