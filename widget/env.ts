/**
 * Runs a challenge's environment proof in the page (src/captcha/env-proof.ts): lays out the
 * challenge's paragraph and answers with the line of each word, joined by commas; an empty
 * answer when the challenge carries no paragraph (the service had no engine to take
 * reference values with) or the page cannot load the proof's font.
 */
import type { ProbeBox } from '../src/captcha/env-proof.ts';
import { measureProbe } from './env-probes.ts';

export interface EnvChallenge {
  probe: ProbeBox | null;
}

/** The line of each word, measured in the proof's font fetched from `fontUrl` (the service's, once a page). */
export async function runEnv(env: EnvChallenge, fontUrl: string): Promise<string> {
  if (!env.probe) return '';
  const font = () =>
    fetch(fontUrl, { mode: 'cors', credentials: 'omit' }).then((r) => {
      if (!r.ok) throw new Error(`font: ${r.status}`);
      return r.arrayBuffer();
    });
  try {
    return (await measureProbe(env.probe, font)).join(',');
  } catch {
    return '';
  }
}
