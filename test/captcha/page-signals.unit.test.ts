import { describe, expect, it } from 'vitest';
import { judgePage, type PageSignals } from '../../src/captcha/page-signals.ts';
import { imageMayLift, scoreEvidence } from '../../src/captcha/risk.ts';
import { unpackEvidence, type Telemetry } from '../../src/captcha/evidence.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
/** What Debian's Chromium, driven by a person on Xvfb, reported (test/adversary/person.test.ts). */
const person: PageSignals = {
  cdp: false,
  automation: false,
  no_pointer: false,
  tampered: false,
  permission_mismatch: false,
  ua: UA,
  language: 'en-US',
  brands: 'Not:A-Brand/8,Chromium/156',
  platform: 'Linux',
  ua_data: 'full',
  webgl: '',
};
const window = { outer: [1200, 900], inner: [1200, 757], screen: [1280, 1024] } as const;
const telemetry = (page: Partial<PageSignals> | null, over: Partial<Telemetry> = {}): Telemetry => ({
  webdriver: false,
  timeOnPageMs: 9000,
  interactions: 5,
  window,
  dpr: 100,
  ...(page === null ? {} : { page: { ...person, ...page } }),
  ...over,
});
const request = {
  userAgent: UA,
  acceptLanguage: 'en-US,en;q=0.9',
  clientHints: { ua: '"Not:A-Brand";v="8", "Chromium";v="156"', platform: '"Linux"' },
  secureTransport: true,
};

describe('judgePage', () => {
  it("finds nothing in a person's page that agrees with its request", () => {
    expect(judgePage(telemetry({}), request)).toEqual([]);
    // Firefox: no userAgentData, no client hints.
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
    const ff = telemetry({ ua: firefox, brands: '', platform: '', ua_data: 'absent', webgl: 'llvmpipe, or similar' });
    expect(judgePage(ff, { userAgent: firefox, acceptLanguage: 'en-US,en;q=0.5', secureTransport: true })).toEqual([]);
  });

  it('names each trace of automation the page shows', () => {
    expect(judgePage(telemetry({ cdp: true }), request)).toEqual(['devtools_protocol']);
    expect(judgePage(telemetry({ automation: true, no_pointer: true }), request)).toEqual([
      'automation_globals',
      'no_pointer',
    ]);
    expect(judgePage(telemetry({ tampered: true, permission_mismatch: true }), request)).toEqual([
      'natives_tampered',
      'permission_mismatch',
    ]);
    expect(judgePage(telemetry({ ua_data: 'empty' }), request)).toEqual(['ua_overridden']);
    expect(judgePage(telemetry({ webgl: 'Intel Iris OpenGL Engine' }), request)).toEqual(['webgl_spoofed']);
    expect(judgePage(telemetry({ webgl: 'ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device))' }), request)).toEqual([]);
    const headless = telemetry({}, { window: { outer: [780, 580], inner: [800, 600], screen: [800, 600] } });
    expect(judgePage(headless, request)).toEqual(['window_impossible']);
    // At another density (a zoom, a HiDPI screen) the page area may be larger than the window.
    expect(judgePage({ ...headless, dpr: 80 }, request)).toEqual([]);
  });

  it('names where the page and its request disagree', () => {
    expect(judgePage(telemetry({}), { ...request, userAgent: `${UA} x` })).toEqual(['ua_mismatch']);
    expect(judgePage(telemetry({}), { ...request, acceptLanguage: 'de-DE,de' })).toEqual(['language_mismatch']);
    expect(judgePage(telemetry({}), { ...request, clientHints: { ua: '"Chromium";v="140"' } })).toEqual([
      'client_hints_mismatch',
    ]);
    expect(
      judgePage(telemetry({}), { ...request, clientHints: { ...request.clientHints, platform: '"Windows"' } }),
    ).toEqual(['client_hints_mismatch']);
    // A Chromium sends client hints over TLS and to loopback hosts; a client that sends none made its page up.
    expect(judgePage(telemetry({}), { ...request, clientHints: {} })).toEqual(['client_hints_mismatch']);
    expect(judgePage(telemetry({}), { ...request, clientHints: {}, secureTransport: false })).toEqual([]);
  });

  it('telemetry without the page counts as the worst case, no telemetry as telemetry_missing', () => {
    expect(judgePage(telemetry(null), request)).toEqual(['page_signals_missing']);
    expect(judgePage(undefined, request)).toEqual([]);
  });
});

describe('the score with page signals and networks', () => {
  const evidence = unpackEvidence([]);
  const work = { size: { count: 8, bits: 9 }, elapsedMs: 2000 };
  it('a person scores 0.9, one sign of a DevTools client 0.3, a missing page 0.3', () => {
    expect(scoreEvidence({ evidence, telemetry: telemetry({}), envOk: true, work, request }).score).toBe(0.9);
    expect(scoreEvidence({ evidence, telemetry: telemetry({ cdp: true }), envOk: true, work, request }).score).toBe(
      0.3,
    );
    expect(scoreEvidence({ evidence, telemetry: telemetry(null), envOk: true, work, request }).score).toBe(0.3);
  });

  it('a hosting network costs 0.6; a right image gives back 0.2 of it, never for automation', () => {
    const hosting = { ...evidence, hosting: true };
    const base = { evidence: hosting, telemetry: telemetry({}), envOk: true, work, request };
    expect(scoreEvidence(base)).toMatchObject({ score: 0.3, reasons: ['work', 'layout_engine', 'hosting_network'] });
    expect(scoreEvidence({ ...base, imageAnswer: true }).score).toBe(0.5);
    const automated = { ...base, evidence, telemetry: telemetry({ cdp: true }), imageAnswer: true };
    expect(scoreEvidence(automated).score).toBe(0.3);
    expect(imageMayLift(['work', 'layout_engine', 'hosting_network'])).toBe(true);
    expect(imageMayLift(['work', 'layout_engine', 'devtools_protocol'])).toBe(false);
  });

  it('one browser past 30 challenges an hour on one network costs 0.2, past 120 0.4', () => {
    const at = (browserRate: number) =>
      scoreEvidence({ evidence: { ...evidence, browserRate }, telemetry: telemetry({}), envOk: true, work, request });
    expect(at(30).score).toBe(0.9);
    expect(at(31)).toMatchObject({ score: 0.7, reasons: expect.arrayContaining(['browser_rate_high']) });
    expect(at(121)).toMatchObject({ score: 0.5, reasons: expect.arrayContaining(['browser_rate_very_high']) });
  });
});
