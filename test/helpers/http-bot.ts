/**
 * An HTTP client that gets v3 tokens as a bot on a server does: a browser's headers (only
 * text), the work solved natively (captcha.ts solveProofAsync: walk.wat in worker threads),
 * the telemetry a person's page would send, the page's report included (it costs nothing to
 * say), and whatever answer to
 * the environment proof's layout its `answer` gives (none, a layout library's, an oracle's).
 */
import { randomInt } from 'node:crypto';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import { browser, PERSON_TELEMETRY, solveProofAsync } from './captcha.ts';
import { request } from './http.ts';
import { Agent } from 'undici';

/** An address in a new /16 each call: the bot's requests look calm, each paying the level's price. */
const newSlash16 = () => `${randomInt(11, 200)}.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A layout answer: the comma-joined values, or undefined to send none. */
export type LayoutAnswer = (probe: ProbeBox | null) => Promise<string | undefined> | string | undefined;

/**
 * One v3 token from the service at `base` for `sitekey`, requests from `origin` and `ip`
 * (X-Forwarded-For: the service must trust it), or, with `localAddress`, from a connection
 * bound to that address (a loopback address a test's ASN dataset maps to a network) and no
 * X-Forwarded-For. Throws with the response on any refusal.
 */
export async function httpBotToken(
  base: string,
  opts: { sitekey: string; origin: string; answer: LayoutAnswer; ip?: string; localAddress?: string },
): Promise<string> {
  const headers = browser(opts.origin, opts.localAddress ? undefined : (opts.ip ?? newSlash16()));
  const bound = opts.localAddress ? new Agent({ localAddress: opts.localAddress }) : undefined;
  const via = bound ? ({ dispatcher: bound } as RequestInit) : {};
  const fields = { sitekey: opts.sitekey, action: 'login', telemetry: PERSON_TELEMETRY };
  try {
    return await exchange();
  } finally {
    await bound?.close();
  }

  async function exchange(): Promise<string> {
    const first = await request(`${base}/api/v3/challenges`, { ...via, method: 'POST', headers, json: fields });
    if (first.status !== 201) throw new Error(`challenge: ${first.status} ${JSON.stringify(first.body)}`);
    const work = first.body.challenge as {
      ticket: string;
      id: string;
      count: number;
      bits: number;
      env?: { probe: ProbeBox | null };
    };
    const [proof, env] = await Promise.all([solveProofAsync(work), opts.answer(work.env?.probe ?? null)]);
    const done = await request(`${base}/api/v3/challenges`, {
      ...via,
      method: 'POST',
      headers,
      json: { ...fields, ...proof, ...(env === undefined ? {} : { env }) },
    });
    if (done.status !== 201) throw new Error(`proof: ${done.status} ${JSON.stringify(done.body)}`);
    return done.body.token as string;
  }
}
