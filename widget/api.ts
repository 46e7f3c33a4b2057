import { telemetry, type Telemetry } from './telemetry.ts';

/** What went wrong, as the widget explains it to the visitor and to `error-callback`. */
export type ErrorCode = 'forbidden' | 'network' | 'rate-limited' | 'expired' | 'invalid' | 'server';

export class CaptchaError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** Seconds to wait, for `rate-limited` (from Retry-After). */
    readonly retryAfter = 0,
  ) {
    super(code);
  }
}

/** The wire types, inferred from the routes' zod schemas (type-only: erased from the bundle). */
import type {
  WireIssued as Issued,
  WireManagedOutcome as ManagedOutcome,
  WirePowVerdict as PowVerdict,
  WireScoreOutcome,
  WireV1Verdict as V1Verdict,
  WireV1View as V1View,
  WireWorkView as WorkView,
} from '../src/captcha/wire.ts';
import { runEnv } from './env.ts';
import { PROBE_FONT_PATH } from '../shared/probe-font-path.ts';
import { startWork, workerScriptAt } from './work.ts';
export type { Issued, ManagedOutcome, PowVerdict, V1Verdict, V1View, WorkView };

type Fields = Record<string, string | number | boolean | undefined | Telemetry>;

/**
 * Form-encoded bodies (nested `telemetry[...]` and `telemetry[page][...]` keys; the service reads three levels): a CORS "simple" request, so no
 * preflight round trip. No credentials, no cookies.
 */
function encode(fields: Fields): URLSearchParams {
  const body = new URLSearchParams();
  const add = (key: string, value: unknown) => {
    if (value === undefined) return;
    if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else body.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  };
  for (const [key, value] of Object.entries(fields)) add(key, value);
  return body;
}

/** The challenge routes of one service, at `base` (the folder widget.js was loaded from). */
export class Api {
  constructor(readonly base: string) {
    workerScriptAt(this.url('/widget-worker.js'));
  }

  private url(path: string): string {
    return this.base + path;
  }

  /** Where the environment proof's font is served (facade/widget.ts). */
  get probeFontUrl(): string {
    return this.url(PROBE_FONT_PATH);
  }

  /**
   * A fetch whose failures become CaptchaErrors. A refused origin gets no CORS headers, so
   * the browser reports it like a network failure; a no-cors probe of /healthz tells the two
   * apart (it resolves when the service is reachable).
   */
  private async send(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.url(path), { ...init, mode: 'cors', credentials: 'omit', cache: 'no-store' });
    } catch {
      const reachable = await fetch(this.url('/healthz'), {
        mode: 'no-cors',
        credentials: 'omit',
        cache: 'no-store',
      }).then(
        () => true,
        () => false,
      );
      throw new CaptchaError(reachable ? 'forbidden' : 'network');
    }
    if (res.ok) return res;
    const s = res.status;
    if (s === 429) throw new CaptchaError('rate-limited', Math.max(1, Number(res.headers.get('Retry-After')) || 30));
    throw new CaptchaError(
      s === 403 ? 'forbidden' : s === 404 ? 'expired' : s === 400 || s === 422 ? 'invalid' : 'server',
    );
  }

  async post<T>(path: string, fields: Fields = {}): Promise<T> {
    const res = await this.send(path, { method: 'POST', body: encode(fields) });
    return (await res.json()) as T;
  }

  /**
   * v3: a score token for `action` (default `submit`); the score itself stays sealed in it.
   * Two requests: the work challenge, then its proof (the work in workers, the environment
   * program on the page).
   */
  async score(sitekey: string, action?: string, cdata?: string): Promise<Issued> {
    const fields = { sitekey, action: action || 'submit', cdata };
    const first = await this.post<WireScoreOutcome>('/api/v3/challenges', { ...fields, telemetry: await telemetry() });
    if (!('challenge' in first)) return first;
    const work = first.challenge;
    const envAnswer = runEnv(work.env, this.probeFontUrl);
    const attested = this.attestIf(sitekey, work, work.id);
    const { solutions } = await startWork(work).promise;
    await attested;
    const issued = await this.post<WireScoreOutcome>('/api/v3/challenges', {
      ...fields,
      telemetry: await telemetry(),
      work: work.ticket,
      solutions,
      env: await envAnswer,
    });
    if ('challenge' in issued) throw new CaptchaError('server');
    return issued;
  }

  /**
   * Offers the challenge a Private Access Token: the route answers 401 with a PrivateToken
   * challenge, which a browser on an attested device (Safari) answers itself by retrying with
   * the token. Nothing to do with the answer; failures and other browsers cost nothing.
   */
  async attest(sitekey: string, challenge: string): Promise<void> {
    const path = `/api/v2/challenges/${encodeURIComponent(challenge)}/private-token?sitekey=${encodeURIComponent(sitekey)}`;
    await fetch(this.url(path), { mode: 'cors', credentials: 'omit', signal: AbortSignal.timeout(5000) }).catch(
      () => undefined,
    );
  }

  /** Starts {@link attest} when the challenge asks for it; resolves when it is done. */
  attestIf(sitekey: string, view: { private_token?: boolean }, challenge: string): Promise<void> {
    return view.private_token ? this.attest(sitekey, challenge) : Promise.resolve();
  }

  /** The challenge image as a Blob (shown through an object URL). */
  async asset(assetUrl: string): Promise<Blob> {
    return (await this.send(assetUrl, { method: 'GET' })).blob();
  }
}
