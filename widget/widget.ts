import {
  CaptchaError,
  type Api,
  type Issued,
  type ManagedOutcome,
  type PowVerdict,
  type V1Verdict,
  type V1View,
  type WorkView,
} from './api.ts';
import { runEnv } from './env.ts';
import { startWork, type WorkJob } from './work.ts';
import { fill, rateLimitedText, stringsFor, type Language, type Strings } from './strings.ts';
import { telemetry } from './telemetry.ts';
import { buildView, type State, type View } from './view.ts';
import { call, responseFields, tokenLifetime, type Mode, type RenderOptions } from './options.ts';

export type { Mode, RenderOptions } from './options.ts';

/** One rendered widget: its UI, its token in hidden form fields, its timers. */
export class Widget {
  private token: string | undefined;
  readonly mode: Mode;
  private readonly s: Strings;
  /** The widget's language, for messages whose form depends on a count. */
  private readonly language: Language;
  private readonly view: View;
  private readonly fields: HTMLInputElement[];
  private readonly form: HTMLFormElement | null;
  /** Bumped by reset and remove: async steps of an older run drop their result. */
  private run = 0;
  private busy = false;
  private tokenUntil = 0;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private waitTimer: ReturnType<typeof setTimeout> | undefined;
  private job: WorkJob | undefined;
  /** The image challenge on screen, and the proof of work its next answer carries (solved in the background). */
  private challenge: { view: V1View; managed: boolean; proof?: { job: WorkJob; ticket: string } } | undefined;
  private imageUrl: string | undefined;
  private pending: Promise<string> | undefined;
  private waiters: { resolve(token: string): void; reject(err: Error): void }[] = [];

  constructor(
    readonly id: string,
    private readonly api: Api,
    readonly container: HTMLElement,
    private readonly opts: RenderOptions,
  ) {
    this.mode = opts.mode === 'explicit' || opts.mode === 'invisible' ? opts.mode : 'managed';
    const language = stringsFor(opts.language, opts.strings);
    this.language = language;
    this.s = language.strings;
    this.view = buildView(this.s, opts.theme ?? 'auto', language.lang);
    this.fields = responseFields(opts.responseFieldAliases).map((name) =>
      Object.assign(document.createElement('input'), { type: 'hidden', name }),
    );
    container.append(this.view.host, ...this.fields);
    this.form = container.closest('form');
    this.form?.addEventListener('submit', this.onSubmit, true);

    const v = this.view;
    v.action.addEventListener('click', () => this.activate());
    v.submit.addEventListener('click', () => void this.answer());
    v.refresh.addEventListener('click', () => void this.refresh());
    v.noImage.addEventListener('click', () => void this.withoutImage());
    v.answer.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      void this.answer();
    });
    this.start();
  }

  /** Current token, or undefined (also once it has expired, even if a throttled timer has not said so yet). */
  response(): string | undefined {
    if (this.token && Date.now() >= this.tokenUntil) this.expire();
    return this.token;
  }

  /** Resolves with a token: invisible fetches a score token; managed runs (or waits for) its flow. */
  execute(): Promise<string> {
    const token = this.response();
    if (token) return Promise.resolve(token);
    if (this.mode === 'invisible') return (this.pending ??= this.score().finally(() => (this.pending = undefined)));
    if (this.mode === 'managed' && !this.busy && !this.challenge) this.activate();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Back to the first state: token, timers, challenge and pending work dropped. */
  reset(): void {
    this.stop(new Error('reset'));
    this.start();
  }

  remove(): void {
    this.stop(new Error('removed'));
    this.form?.removeEventListener('submit', this.onSubmit, true);
    this.view.host.remove();
    for (const f of this.fields) f.remove();
  }

  private stop(reason: Error): void {
    this.run++;
    this.job?.cancel();
    this.job = undefined;
    this.challenge?.proof?.job.cancel();
    clearTimeout(this.expiryTimer);
    clearTimeout(this.waitTimer);
    this.setToken(undefined);
    this.challenge = undefined;
    this.busy = false;
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = undefined;
    for (const w of this.waiters.splice(0)) w.reject(reason);
  }

  private start(): void {
    const v = this.view;
    v.box.hidden = this.mode === 'invisible';
    v.panel.hidden = true;
    v.progress.hidden = true;
    v.action.hidden = this.mode !== 'managed';
    this.setState('idle', this.s.verify, '');
    if (this.mode === 'explicit') void this.newChallenge();
  }

  // --- presentation -------------------------------------------------------------------

  private focused(): boolean {
    return !!this.view.host.shadowRoot?.activeElement;
  }

  private setState(state: State, actionText: string, message: string, bad = false): void {
    const v = this.view;
    v.box.dataset.state = state;
    v.box.setAttribute('aria-busy', String(state === 'working'));
    v.actionText.textContent = actionText;
    v.action.setAttribute('aria-disabled', String(state === 'working' || state === 'success'));
    v.action.setAttribute('aria-checked', String(state === 'success'));
    this.say(message, bad);
  }

  private say(message: string, bad = false): void {
    this.view.status.textContent = message;
    this.view.status.classList.toggle('bad', bad);
    this.view.status.classList.remove('sr');
    if (message && this.mode === 'invisible') this.view.box.hidden = false;
  }

  private setToken(token: string | undefined): void {
    this.token = token;
    for (const f of this.fields) f.value = token ?? '';
  }

  // --- flows --------------------------------------------------------------------------

  /** The managed button, a retry, or a submit without a token. */
  private activate(): void {
    if (this.busy || this.token || this.view.action.getAttribute('aria-disabled') === 'true') return;
    if (this.mode === 'explicit') void this.newChallenge();
    else if (this.mode === 'managed') void this.managed();
    else void this.execute().catch(() => {});
  }

  private async managed(note = '', opening = this.s.verifying): Promise<void> {
    const run = this.run;
    this.busy = true;
    this.setState('working', this.s.verifying, opening);
    try {
      const out = await this.api.post<ManagedOutcome>('/api/v2/challenges', {
        sitekey: this.opts.sitekey,
        action: this.opts.action,
        cdata: this.opts.cdata,
        telemetry: await telemetry(),
      });
      if (run !== this.run) return;
      if (out.outcome === 'pass') return this.succeed(out);
      if (out.outcome === 'challenge') return await this.showChallenge(out.challenge, true, note);
      const envAnswer = runEnv(out.work.env, this.api.probeFontUrl);
      const attested = this.api.attestIf(this.opts.sitekey, out.work, out.challenge);
      const solutions = await this.solve(out.work, run);
      if (solutions === undefined) return;
      await attested;
      const verdict = await this.api.post<PowVerdict>(
        `/api/v2/challenges/${encodeURIComponent(out.challenge)}/verify`,
        {
          work: out.work.ticket,
          solutions,
          env: await envAnswer,
          telemetry: await telemetry(),
        },
      );
      if (run !== this.run) return;
      if (verdict.success) return this.succeed(verdict);
      if (verdict.error === 'challenge-required') return await this.showChallenge(verdict.challenge, true, note);
      throw new CaptchaError('server');
    } catch (err) {
      if (run === this.run) this.fail(err);
    }
  }

  /** Runs work with the progress bar showing; undefined when the run was reset meanwhile. */
  private async solve(work: WorkView, run: number, message = this.s.checking): Promise<string | undefined> {
    const v = this.view;
    let shown = 0;
    v.progress.value = 0;
    v.progress.hidden = false;
    v.actionText.textContent = fill(this.s.working, { n: 0 });
    this.say(message);
    this.job = startWork(work, (fraction) => {
      const pct = Math.min(99, Math.floor(fraction * 100));
      if (pct === shown || run !== this.run) return;
      shown = pct;
      v.progress.value = pct;
      v.actionText.textContent = fill(this.s.working, { n: pct });
    });
    const { solutions } = await this.job.promise;
    this.job = undefined;
    return run === this.run ? solutions : undefined;
  }

  /** Starts the proof the next answer needs, in the background while the visitor reads. */
  private prepareProof(work: WorkView | null | undefined): void {
    const c = this.challenge;
    if (!c) return;
    c.proof?.job.cancel();
    c.proof = work ? { job: startWork(work), ticket: work.ticket } : undefined;
    c.proof?.job.promise.catch(() => {});
  }

  /**
   * The way through without the image: a longer proof of work, announced in the live region
   * (it takes some seconds), sent instead of an answer.
   */
  private async withoutImage(): Promise<void> {
    const c = this.challenge;
    const v = this.view;
    if (!c || this.busy || !c.view.no_image) return;
    const run = this.run;
    this.busy = true;
    c.proof?.job.cancel();
    c.proof = undefined;
    v.panel.hidden = true;
    this.setState('working', this.s.verifying, this.s.noImageWorking);
    try {
      const envAnswer = this.v1Env(c.view);
      const solutions = await this.solve(c.view.no_image, run, this.s.noImageWorking);
      if (solutions === undefined) return;
      const verdict = await this.api.post<V1Verdict>(
        `/api/v1/challenges/${encodeURIComponent(c.view.challenge)}/verify`,
        {
          no_image: true,
          work: c.view.no_image.ticket,
          solutions,
          ...(await envAnswer),
          telemetry: await telemetry(),
        },
      );
      if (run !== this.run) return;
      if (verdict.success) return this.succeed(verdict);
      throw new CaptchaError('server');
    } catch (err) {
      if (run === this.run) this.challengeError(err);
    }
  }

  /** The environment proof's answer for an image challenge that carries one (and its Private Access Token, when asked). */
  private async v1Env(view: V1View): Promise<{ env?: string }> {
    const [env] = await Promise.all([
      view.env ? runEnv(view.env, this.api.probeFontUrl) : undefined,
      this.api.attestIf(this.opts.sitekey, view, view.challenge),
    ]);
    return env === undefined ? {} : { env };
  }

  private async score(): Promise<string> {
    const run = this.run;
    try {
      const issued = await this.api.score(this.opts.sitekey, this.opts.action, this.opts.cdata);
      if (run !== this.run) throw new Error('reset');
      this.succeed(issued);
      return issued.token;
    } catch (err) {
      if (run === this.run) this.fail(err);
      throw err;
    }
  }

  /** A new image challenge: explicit creates one; managed starts its flow again. */
  private async newChallenge(note = ''): Promise<void> {
    if (this.challenge?.managed) {
      this.challenge = undefined;
      return this.managed(note);
    }
    const run = this.run;
    this.busy = true;
    this.say(this.s.loading);
    try {
      const view = await this.api.post<V1View>('/api/v1/challenges', {
        sitekey: this.opts.sitekey,
        action: this.opts.action,
        cdata: this.opts.cdata,
      });
      if (run === this.run) await this.showChallenge(view, false, note);
    } catch (err) {
      if (run === this.run) this.fail(err);
    }
  }

  private async showChallenge(view: V1View, managed: boolean, note = ''): Promise<void> {
    const run = this.run;
    const v = this.view;
    const hadFocus = this.focused();
    this.busy = true;
    this.challenge = { view, managed };
    this.prepareProof(view.work);
    const blob = await this.api.asset(view.asset_url);
    if (run !== this.run) return;
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = v.image.src = URL.createObjectURL(blob);
    v.action.hidden = true;
    v.progress.hidden = true;
    v.panel.hidden = false;
    v.noImage.hidden = !view.no_image;
    v.image.alt = view.no_image ? this.s.imageAltOther : this.s.imageAlt;
    v.answer.value = '';
    this.busy = false;
    // Without a note the visible prompt says it all; the live region still announces it.
    this.setState('challenge', this.s.verify, note || this.s.prompt, !!note);
    v.status.classList.toggle('sr', !note);
    if (hadFocus || note) v.answer.focus();
  }

  private async answer(): Promise<void> {
    const c = this.challenge;
    const v = this.view;
    if (!c || this.busy || v.submit.getAttribute('aria-disabled') === 'true') return;
    const answer = v.answer.value.trim();
    if (!answer) {
      this.say(this.s.empty, true);
      return v.answer.focus();
    }
    const run = this.run;
    this.busy = true;
    try {
      const proof = c.proof;
      // Said on every answer, so a screen reader hears that Enter did something.
      this.say(this.s.verifying);
      const envAnswer = this.v1Env(c.view);
      const solved = proof ? { work: proof.ticket, solutions: (await proof.job.promise).solutions } : {};
      if (run !== this.run) return;
      const verdict = await this.api.post<V1Verdict>(
        `/api/v1/challenges/${encodeURIComponent(c.view.challenge)}/verify`,
        { answer, ...solved, ...(await envAnswer), telemetry: await telemetry() },
      );
      if (run !== this.run) return;
      this.busy = false;
      if (verdict.success) return this.succeed(verdict);
      if (verdict.error === 'challenge-spent') return await this.newChallenge(this.s.spent);
      this.prepareProof(verdict.work);
      v.answer.value = '';
      v.answer.focus();
      this.say(fill(this.s.wrong, { n: verdict.attempts_left }), true);
    } catch (err) {
      if (run === this.run) this.challengeError(err);
    }
  }

  private async refresh(): Promise<void> {
    const c = this.challenge;
    if (!c || this.busy || this.view.refresh.getAttribute('aria-disabled') === 'true') return;
    const run = this.run;
    this.busy = true;
    try {
      const view = await this.api.post<V1View>(`/api/v1/challenges/${encodeURIComponent(c.view.challenge)}/regenerate`);
      if (run === this.run) await this.showChallenge(view, c.managed);
    } catch (err) {
      if (run !== this.run) return;
      // 422: no new images left for this challenge; start a fresh one.
      if (err instanceof CaptchaError && err.code === 'invalid') return void this.newChallenge();
      this.challengeError(err);
    }
  }

  /** Failures while a challenge is on screen: expiry replaces it, a rate limit waits. */
  private challengeError(err: unknown): void {
    this.busy = false;
    const code = err instanceof CaptchaError ? err.code : 'server';
    if (code === 'expired') void this.newChallenge(this.s.challengeExpired);
    else if (code === 'rate-limited') this.wait((err as CaptchaError).retryAfter);
    else this.fail(err);
  }

  /** 429: buttons refuse for Retry-After seconds, then the visitor is told to go on. */
  private wait(seconds: number): void {
    const v = this.view;
    const buttons = [v.action, v.submit, v.refresh];
    for (const b of buttons) b.setAttribute('aria-disabled', 'true');
    this.say(rateLimitedText(this.language, seconds), true);
    call(this.opts.errorCallback, 'rate-limited');
    const run = this.run;
    this.waitTimer = setTimeout(() => {
      if (run !== this.run) return;
      for (const b of buttons) b.setAttribute('aria-disabled', 'false');
      this.say(this.s.retryNow);
    }, seconds * 1000);
  }

  private succeed(issued: Issued): void {
    const v = this.view;
    const hadFocus = this.focused();
    this.busy = false;
    this.challenge?.proof?.job.cancel();
    this.challenge = undefined;
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = undefined;
    v.panel.hidden = true;
    v.progress.hidden = true;
    v.action.hidden = this.mode === 'invisible';
    this.setToken(issued.token);
    this.setState('success', this.s.verified, this.mode === 'invisible' ? '' : this.s.success);
    if (this.mode === 'invisible') v.box.hidden = true;
    if (hadFocus) v.action.focus();
    const lifetime = tokenLifetime(issued.expires_at);
    this.tokenUntil = Date.now() + lifetime;
    clearTimeout(this.expiryTimer);
    const run = this.run;
    this.expiryTimer = setTimeout(() => run === this.run && this.expire(), lifetime);
    call(this.opts.callback, issued.token);
    for (const w of this.waiters.splice(0)) w.resolve(issued.token);
  }

  private expire(): void {
    clearTimeout(this.expiryTimer);
    this.setToken(undefined);
    call(this.opts.expiredCallback);
    const auto = this.opts.refreshExpired !== 'manual';
    if (this.mode === 'invisible') {
      if (auto) void this.execute().catch(() => {});
    } else if (this.mode === 'managed' && auto) {
      void this.managed('', this.s.renewing);
    } else {
      this.view.action.hidden = false;
      this.setState('error', this.s.again, this.s.expired, true);
    }
  }

  private fail(err: unknown): void {
    const code = err instanceof CaptchaError ? err.code : 'server';
    this.busy = false;
    this.job?.cancel();
    this.job = undefined;
    const v = this.view;
    v.progress.hidden = true;
    if (code === 'rate-limited' && this.challenge) return this.wait((err as CaptchaError).retryAfter);
    this.challenge = undefined;
    v.panel.hidden = true;
    v.action.hidden = this.mode === 'invisible';
    const message =
      code === 'forbidden'
        ? this.s.forbidden
        : code === 'network'
          ? this.s.network
          : code === 'rate-limited'
            ? rateLimitedText(this.language, (err as CaptchaError).retryAfter)
            : this.s.failed;
    this.setState('error', this.s.retry, message, true);
    if (code === 'rate-limited') this.wait((err as CaptchaError).retryAfter);
    else call(this.opts.errorCallback, code);
    for (const w of this.waiters.splice(0)) w.reject(new CaptchaError(code));
  }

  /**
   * Capture-phase submit guard: a form without a live token does not go out. Managed and
   * invisible widgets fetch one and submit again; the image challenge asks to be solved.
   */
  private readonly onSubmit = (e: SubmitEvent): void => {
    if (this.response()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (this.mode === 'explicit' || this.challenge) {
      this.say(this.s.needed, true);
      (this.challenge ? this.view.answer : this.view.action).focus();
      return;
    }
    const form = this.form!;
    const submitter = e.submitter as HTMLButtonElement | null;
    this.execute().then(
      () => form.isConnected && form.requestSubmit(submitter?.form === form ? submitter : undefined),
      () => {},
    );
  };
}
