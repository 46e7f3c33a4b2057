/**
 * Arbitraries for hostile requests: strings and values no client should be trusted with,
 * report URLs, credentials, origins, path segments and query strings.
 *
 * Nothing generated may reach the network: every string that would parse as an http(s) URL
 * is rewritten to a loopback, literal-address or `.invalid` host (see `defang`), and the
 * services run with ANALYZER_ALLOW_PRIVATE=false, so the analyzer refuses them before
 * connecting.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import type { World } from './harness.ts';

// ---------------------------------------------------------------------------------------
// Strings and values

const junkConstants = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202eevil',
  '😀🏳️‍🌈',
  'Z̷̢͎a̶̗l̵g̷o̸',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%ff%fe',
  '${jndi:ldap://x.invalid/a}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; drop table reports; --',
  '%s%s%s%n',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '9'.repeat(40),
  '[object Object]',
  '\r\nX-Injected: 1',
];

/** A string of `n` copies of a character, up to ~100 KB: cheap to generate, heavy to parse. */
export const hugeString = fc
  .tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom('a', 'é', '😀', '\u0000', '<', '%', '\\'))
  .map(([n, c]) => c.repeat(Math.ceil(n / c.length)));

/** Strings a client should never be trusted with: unicode, lone surrogates, NUL, huge, injection-looking. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...junkConstants) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: hugeString },
);

/** Any JSON-ish value of the wrong kind: numbers, booleans, null, arrays, objects, hostile strings. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2 ** 53, -(2 ** 31), 1e308)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype')),
      tie('value'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

/** Hosts the analyzer may be asked about here: none of them needs DNS, all are refused. */
function safeHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    isIP(bare) !== 0 ||
    bare === 'localhost' ||
    bare.endsWith('.localhost') ||
    bare === 'invalid' ||
    bare.endsWith('.invalid')
  );
}

/**
 * Was a workaround for PGlite's statement splitting on `;` inside values (fixed in
 * src/db/pglite-statements.ts); values keep their semicolons everywhere now.
 */
export const SIDESTEP_SEMICOLON_BUG = false;

export function sidestepKnownBugs(s: string): string {
  return SIDESTEP_SEMICOLON_BUG ? s.replaceAll(';', ',') : s;
}

/**
 * Rewrites any string the server would take for an http(s) URL with a host that needs DNS
 * to one on `blocked.invalid`, recursively through arrays and objects. Mirrors the server's
 * lenient parse (trimmed, then WHATWG URL), so nothing generated can leave the machine.
 * Also applies `sidestepKnownBugs` to every string.
 */
export function defang<T>(value: T): T {
  if (typeof value === 'string') {
    const text = sidestepKnownBugs(value);
    let url: URL;
    try {
      url = new URL(text.trim());
    } catch {
      return text as T;
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !safeHost(url.hostname)) {
      return 'http://blocked.invalid/' as T;
    }
    return text as T;
  }
  if (Array.isArray(value)) return value.map(defang) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[defang(k)] = defang(v);
    return out as T;
  }
  return value;
}

/** Report URLs: the fixture, private and special addresses, other schemes, and junk. */
export function urlArb(world: World): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constant(world.fixtureUrl),
      fc.constantFrom(
        'http://127.0.0.1/',
        'http://localhost:1/',
        'http://[::1]/',
        'http://0.0.0.0/',
        'http://10.0.0.1/',
        'http://192.168.1.1/admin',
        'http://169.254.169.254/latest/meta-data/',
        'http://2130706433/',
        'http://0x7f.1/',
        'https://nothing.invalid/page',
        'http://user:pass@127.0.0.1/',
        'javascript:alert(1)',
        'file:///etc/passwd',
        'ftp://x.invalid/',
        'data:text/html,<h1>x</h1>',
        'http://',
        'http://[::1',
        '//127.0.0.1/',
        `http://127.0.0.1/${'a'.repeat(5000)}`,
      ),
      fc.webPath().map((p) => `http://x.invalid${p}`),
      hostileString,
    )
    .map(defang);
}

// ---------------------------------------------------------------------------------------
// Header values

const headerValue = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

export function authorizationArb(world: World, validWeight: number): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(`Bearer ${world.apiKey}`) },
    {
      weight: 10 - validWeight,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Basic Zm9vOmJhcg==',
          `Bearer ${world.apiKey} extra`,
          `Token ${world.apiKey}`,
          `Bearer ${world.apiKey.slice(0, -1)}`,
          `Bearer ${world.apiKey}x`,
          `Bearer ak_${'0'.repeat(10)}_${'x'.repeat(43)}`,
          `Bearer ${'a'.repeat(8000)}`,
          'Bearer \xff\xfe\x80',
          'Bearer null',
        ),
        hostileString.map((s) => headerValue(`Bearer ${s}`).slice(0, 8000)),
      ),
    },
  );
}

export function originArb(world: World, validWeight: number): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(world.origin) },
    {
      weight: 10 - validWeight,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom(
          'null',
          'https://evil.example',
          `${world.origin}.evil.example`,
          `${world.origin}/`,
          `${world.origin}:99999`,
          'file://',
          'javascript:alert(1)',
          'https://',
          'https://xn--80ak6aa92e.com',
          'https://\xe9xample.com',
          `https://${'a'.repeat(5000)}.example`,
        ),
        hostileString.map((s) => headerValue(s).slice(0, 5000)),
      ),
    },
  );
}

/** Extra headers a hostile client adds: request ids, Accept, encodings. */
export const noiseHeadersArb: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'x-request-id': hostileString.map((s) => headerValue(s).slice(0, 300)),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml', 'image/*', '\xff', ''),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0', 'x-junk'),
    'accept-language': hostileString.map((s) => headerValue(s).slice(0, 300)),
    'user-agent': fc.constantFrom('curl/8', 'HeadlessChrome', '', 'Mozilla/5.0'),
  },
  { requiredKeys: [] },
);

// ---------------------------------------------------------------------------------------
// URL building

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as a browser sends them). */
export function pct(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path segments: plausible ids, encoded junk, and raw traversal or broken escapes. */
export function pathParamArb(extra: string[]): fc.Arbitrary<string> {
  return fc
    .oneof(
      ...(extra.length ? [{ weight: 3, arbitrary: fc.constantFrom(...extra) }] : []),
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '1',
          '0',
          '-1',
          '01',
          '1.5',
          '2147483648',
          '99999999999999999999',
          '1e3',
          '0x1',
          'abc',
        ),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '..',
          '.',
          '%2e%2e',
          '..%2f..%2fetc%2fpasswd',
          '..%252f',
          '%00',
          '%ff',
          '%E0%A4%A',
          '%',
          '%zz',
          '%c0%ae%c0%ae',
          '..;',
          'a%2Fb',
          '%5C..%5C',
          '~',
          "'",
          '"',
          '$(id)',
          'a'.repeat(3000),
        ),
      },
      { weight: 3, arbitrary: hostileString.filter((s) => s.length < 2000).map(pct) },
    )
    .map((segment) => (SIDESTEP_SEMICOLON_BUG ? segment.replaceAll(';', ',').replace(/%3B/gi, ',') : segment));
}

const hostileQueryValue = hostileString.map((s) => s.slice(0, 2000));

/** Query strings: valid-looking and hostile values, duplicated keys, nesting, broken escapes. */
export function queryArb(params: Array<{ name: string; valid: fc.Arbitrary<string> }>): fc.Arbitrary<string> {
  // Mostly short enough for Node's 16 KB header limit; now and then far past it (431).
  const hostileString = fc.oneof(
    { weight: 15, arbitrary: hostileQueryValue },
    { weight: 1, arbitrary: fc.constant('q'.repeat(20_000)) },
  );
  const known = params.map((p) =>
    fc.oneof(
      fc.constant<string[]>([]),
      p.valid.map((v) => [`${pct(p.name)}=${pct(defang(v))}`]),
      hostileString.map((v) => [`${pct(p.name)}=${pct(defang(v))}`]),
      fc
        .tuple(p.valid, hostileString)
        .map(([a, b]) => [`${pct(p.name)}=${pct(defang(a))}`, `${pct(p.name)}=${pct(defang(b))}`]),
      fc.constant([`${pct(p.name)}[]=1`, `${pct(p.name)}[x]=2`]),
    ),
  );
  const extra = fc.array(
    fc.oneof(
      fc.tuple(fc.string({ maxLength: 10 }), hostileString).map(([k, v]) => `${pct(k)}=${pct(defang(v))}`),
      fc.constantFrom(
        '&',
        '=',
        '%',
        '%ff',
        'a=%zz',
        '__proto__[x]=1',
        'constructor[prototype][x]=1',
        'a[b][c][d][e][f]=1',
        '=1',
        'a=1=2',
        '%00=%00',
      ),
    ),
    { maxLength: 4 },
  );
  return fc.tuple(fc.tuple(...known), extra).map(([k, e]) => {
    const parts = [...k.flat(), ...e];
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

/** A random client address per request, so per-address limits never trip in a run. */
export const forwardedForArb = fc.oneof({ weight: 9, arbitrary: fc.ipV4() }, { weight: 1, arbitrary: fc.ipV6() });
