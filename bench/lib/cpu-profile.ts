import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTimeEntry {
  /** `function (file:line)`, the file relative to node_modules or the project. */
  frame: string;
  ms: number;
  share: number;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const cwd = `file://${process.cwd()}/`;
  return url.startsWith(cwd) ? url.slice(cwd.length) : url;
}

/** A stretch of time on the monotonic clock, in microseconds (`monotonicUs()`). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Now on the clock V8's profiler stamps samples with (CLOCK_MONOTONIC), in microseconds. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * The `top` frames by self time of a `.cpuprofile` written by `node --cpu-prof`, from the
 * samples and their time deltas, within `window` (the measured run, not start-up or
 * shutdown; all of it by default). Idle time ("(idle)") is left out of the shares.
 */
export function topSelfTime(file: string, top = 15, window?: ProfileWindow): SelfTimeEntry[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const node = byId.get(profile.samples[i])!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    const frame = url ? `${functionName || '(anonymous)'} (${shortUrl(url)}:${lineNumber + 1})` : functionName;
    selfUs.set(frame, (selfUs.get(frame) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, ms: us / 1000, share: us / total }));
}

/** The newest main-thread `.cpuprofile` in `dir` (CPU.<date>.<time>.<pid>.0.<seq>: thread 0). */
export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .sort();
  return files.length ? path.join(dir, files.at(-1)!) : undefined;
}

/** Prints the top self-time frames of a profile, one per line. */
export function printTopSelfTime(file: string, top = 15, window?: ProfileWindow): void {
  const span = window ? `${((window.toUs - window.fromUs) / 1e6).toFixed(1)} s of load, ` : '';
  console.log(`top self time (${path.basename(file)}, ${span}idle excluded):`);
  for (const e of topSelfTime(file, top, window)) {
    console.log(`  ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.ms.toFixed(0).padStart(6)} ms  ${e.frame}`);
  }
}
