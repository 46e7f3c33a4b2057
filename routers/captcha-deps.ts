import type { CaptchaDeps, BrowserRequest } from '../src/captcha/context.ts';
import type { PrivateTokenConfig } from '../src/captcha/private-token.ts';
import type { InnerContext } from './context.ts';

/** What the challenge flows' dependencies are made of: a procedure's context, or the services and an EntityManager. */
type CaptchaSources = Pick<InnerContext, 'em' | 'stores' | 'config' | 'engineReference' | 'analytics' | 'networks'>;

/**
 * The challenge flows' dependencies, read from a procedure's context. A class, its `em` a
 * getter on the prototype: every request's deps share one hidden class (an object literal's
 * getter is a new closure each time, which gives each object a hidden class of its own in
 * V8's old generation). The flows read their deps' fields and never spread them.
 */
class ContextCaptchaDeps implements CaptchaDeps {
  readonly stores: CaptchaDeps['stores'];
  readonly tokenKey: Buffer;
  readonly now = Date.now;
  readonly testKeys: boolean;
  readonly reference: CaptchaDeps['reference'];
  readonly networks: CaptchaDeps['networks'];
  readonly events: CaptchaDeps['events'];
  readonly privateTokens: boolean;

  constructor(private readonly sources: CaptchaSources) {
    if (!sources.config.tokenKey) throw new Error('TOKEN_KEY was not resolved at start');
    this.stores = sources.stores;
    this.tokenKey = sources.config.tokenKey;
    this.testKeys = sources.config.TEST_KEYS === 'on';
    this.reference = sources.engineReference;
    this.networks = sources.networks;
    this.events = sources.analytics;
    this.privateTokens = sources.config.PAT_ISSUERS.length > 0;
  }

  /** Read when a flow needs the database, so a context's EntityManager is forked only then. */
  get em() {
    return this.sources.em;
  }
}

/** The challenge flows' dependencies from a procedure's context. */
export function captchaDeps(ctx: CaptchaSources): CaptchaDeps {
  return new ContextCaptchaDeps(ctx);
}

/**
 * The browser request as the challenge flows see it. Browsers send no Origin on a
 * same-origin GET (the image of a page served by this service itself); Sec-Fetch-Site then
 * says the request comes from our own origin.
 */
export function browserRequest(ctx: InnerContext): BrowserRequest {
  const r = ctx.request;
  const origin = r.origin ?? (r.secFetchSite === 'same-origin' ? r.baseUrl : undefined);
  return {
    origin,
    ip: r.ip,
    userAgent: r.userAgent,
    acceptLanguage: r.acceptLanguage,
    referer: r.referer,
    clientHints: r.clientHints,
    secureTransport: r.secureTransport,
  };
}

/** The Private Access Token challenges' configuration: PAT_ISSUERS, and PUBLIC_URL's host as origin_info. */
export function privateTokenConfig(ctx: Pick<InnerContext, 'config'>): PrivateTokenConfig {
  const { PAT_ISSUERS, PUBLIC_URL } = ctx.config;
  return { issuers: PAT_ISSUERS, originHost: PUBLIC_URL ? new URL(PUBLIC_URL).host : undefined };
}
