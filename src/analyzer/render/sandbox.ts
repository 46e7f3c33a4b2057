/**
 * How Chromium is started: inside its own sandbox, never as root, and inside a memory bound
 * the kernel enforces on its whole process tree.
 *
 * Chromium refuses to sandbox itself as root, so a service running as root would need
 * `--no-sandbox`, and a renderer exploit would then run with the service's own rights. We
 * never pass that flag. Instead the browser is started through a small launcher script that
 * (1) moves itself into the browser's cgroup, (2) hands the profile folder Playwright made to
 * the unprivileged user, and (3) drops to that user before it execs Chromium, whose
 * user-namespace sandbox then confines every renderer. A service not running as root starts
 * Chromium as itself, sandboxed the same way. If the sandbox cannot start, Chromium exits and
 * rendering is switched off with one log line (see BrowserPool); nothing falls back to
 * running unsandboxed.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The launcher: run as root, it drops to AUDIT_CHROMIUM_USER; as anyone else it just execs. */
export const launcherScript = `#!/bin/sh
# Starts Chromium for the analyzer: in its cgroup, as an unprivileged user, sandbox on.
set -eu
if [ -n "\${AUDIT_CHROMIUM_CGROUP:-}" ]; then
  echo $$ > "$AUDIT_CHROMIUM_CGROUP/cgroup.procs"
fi
# Its process (group) id, which Chromium keeps through the execs below: a browser that does
# not start in time is stopped by it at once.
if [ -n "\${AUDIT_CHROMIUM_PIDFILE:-}" ]; then
  echo $$ > "$AUDIT_CHROMIUM_PIDFILE"
fi
# Playwright passes its own --disable-features list and Chromium keeps only the last one:
# merge every list into one flag so none is lost.
features=""
for arg in "$@"; do
  shift
  case "$arg" in
    --disable-features=*) features="\${features:+$features,}\${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
if [ -n "$features" ]; then set -- "$@" "--disable-features=$features"; fi
if [ "$(id -u)" != 0 ]; then
  exec "$AUDIT_CHROMIUM_BINARY" "$@"
fi
user="\${AUDIT_CHROMIUM_USER:?}"
group="$(id -g "$user")"
for arg in "$@"; do
  case "$arg" in
    --user-data-dir=*)
      profile="\${arg#--user-data-dir=}"
      chown -R "$user:$group" "$profile"
      export HOME="$profile" XDG_CONFIG_HOME="$profile" XDG_CACHE_HOME="$profile"
      ;;
  esac
done
exec setpriv --reuid="$user" --regid="$group" --clear-groups --inh-caps=-all -- "$AUDIT_CHROMIUM_BINARY" "$@"
`;

/** Where the browser's processes are held, and how much memory they may use together. */
export interface BrowserCgroup {
  /** The cgroup folder; the launcher writes its PID to `cgroup.procs` there. */
  dir: string;
  version: 1 | 2;
  limitBytes: number;
  /** Highest memory use the kernel recorded for the tree, bytes (undefined if not kept). */
  peakBytes(): Promise<number | undefined>;
  /** PIDs in the cgroup now. */
  pids(): Promise<number[]>;
  /** Remove the cgroup (after the browser has exited). */
  remove(): Promise<void>;
}

async function tryWrite(file: string, value: string): Promise<boolean> {
  try {
    await writeFile(file, value);
    return true;
  } catch {
    return false;
  }
}

async function tryMkdir(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

async function readNumber(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const n = text === undefined ? NaN : Number(text.trim());
  return Number.isFinite(n) ? n : undefined;
}

function cgroupOf(dir: string, version: 1 | 2, limitBytes: number, peakFile: string): BrowserCgroup {
  return {
    dir,
    version,
    limitBytes,
    peakBytes: () => readNumber(path.join(dir, peakFile)),
    async pids() {
      const text = await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).map(Number);
    },
    remove: () => rmdir(dir).catch(() => undefined),
  };
}

/**
 * A memory cgroup of its own for one browser, below this process' own cgroup: cgroup v2 when
 * the unified hierarchy has the memory controller, else v1's memory hierarchy. Undefined when
 * neither can be made here (no cgroup mounted, or not writable), and the caller says so.
 */
export async function createBrowserCgroup(limitBytes: number, name: string): Promise<BrowserCgroup | undefined> {
  const self = await readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  const lines = self.split('\n');
  const unified = lines.find((l) => l.startsWith('0::'))?.slice(3);
  if (unified !== undefined) {
    const root = '/sys/fs/cgroup';
    const controllers = await readFile(path.join(root, unified, 'cgroup.controllers'), 'utf8').catch(() => '');
    if (controllers.split(/\s+/).includes('memory')) {
      const dir = path.join(root, unified, name);
      await tryWrite(path.join(root, unified, 'cgroup.subtree_control'), '+memory');
      if ((await tryMkdir(dir)) && (await tryWrite(path.join(dir, 'memory.max'), String(limitBytes)))) {
        await tryWrite(path.join(dir, 'memory.swap.max'), '0');
        return cgroupOf(dir, 2, limitBytes, 'memory.peak');
      }
      await rmdir(dir).catch(() => undefined);
    }
  }
  const v1 = lines.map((l) => l.split(':')).find((parts) => parts[1]?.split(',').includes('memory'))?.[2];
  if (v1 !== undefined) {
    const dir = path.join('/sys/fs/cgroup/memory', v1, name);
    const made = await tryMkdir(dir);
    if (made && (await tryWrite(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes)))) {
      // Without this, pages could push the tree into swap instead of hitting the bound.
      await tryWrite(path.join(dir, 'memory.memsw.limit_in_bytes'), String(limitBytes));
      await tryWrite(path.join(dir, 'memory.swappiness'), '0');
      return cgroupOf(dir, 1, limitBytes, 'memory.max_usage_in_bytes');
    }
    if (made) await rmdir(dir).catch(() => undefined);
  }
  return undefined;
}

/** The launcher written to a private folder; its path is Playwright's executablePath. */
export interface Launcher {
  path: string;
  /** Where the launcher writes its PID (Chromium's, and its process group's). */
  pidFile: string;
  remove(): Promise<void>;
}

/** Write {@link launcherScript} to a new private folder and make it executable. */
export async function writeLauncher(): Promise<Launcher> {
  const dir = await mkdtemp(path.join(tmpdir(), 'auditcaptcha-chromium-'));
  const file = path.join(dir, 'chromium-sandboxed');
  await writeFile(file, launcherScript);
  await chmod(file, 0o755);
  return {
    path: file,
    pidFile: path.join(dir, 'chromium.pid'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
