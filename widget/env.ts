/**
 * Runs a challenge's environment proof in the page (src/captcha/env-proof.ts): lays out the
 * challenge's boxes and answers with their measured positions and sizes, joined by commas;
 * an empty answer when the challenge carries no layout (the service had no engine to take
 * reference values with).
 */
import type { ProbeBox } from '../src/captcha/env-proof.ts';
import { measureProbe } from './env-probes.ts';

export interface EnvChallenge {
  probe: ProbeBox | null;
}

export function runEnv(env: EnvChallenge): string {
  return env.probe ? measureProbe(env.probe).join(',') : '';
}
