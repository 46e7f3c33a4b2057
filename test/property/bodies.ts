/**
 * Hostile bodies: deeply nested, badly encoded, malformed, wrongly labelled, oversized, and
 * objects built from a route's schema in the OpenAPI document with fields missing, wrong,
 * huge or extra.
 */
import fc from 'fast-check';
import { TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
import { defang, hostileValue, pct, SIDESTEP_SEMICOLON_BUG, urlArb } from './arbitraries.ts';
import { BODY_LIMIT, type World } from './harness.ts';

// ---------------------------------------------------------------------------------------
// Bodies

export interface HostileBody {
  contentType?: string;
  body?: Buffer;
  /** Send with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
  /** A short description for failure messages. */
  kind: string;
}

function formEncode(value: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, v: unknown, depth: number) => {
    if (Array.isArray(v)) v.forEach((x) => add(key, x, depth + 1));
    else if (v !== null && typeof v === 'object' && depth < 4)
      for (const [k, x] of Object.entries(v)) add(`${key}[${k}]`, x, depth + 1);
    else parts.push(`${pct(key)}=${pct(String(v))}`);
  };
  for (const [k, v] of Object.entries(value)) add(k, v, 0);
  return parts.join('&');
}

/** A JSON body of `depth` nested arrays or objects, optionally inside a field. */
export const deepJsonArb = fc
  .tuple(fc.integer({ min: 100, max: 5000 }), fc.constantFrom('array', 'object', 'field'))
  .map(([n, shape]): HostileBody => {
    const deep = shape === 'object' ? '{"a":'.repeat(n) + '1' + '}'.repeat(n) : '['.repeat(n) + ']'.repeat(n);
    const text = shape === 'field' ? `{"sitekey":${deep},"url":${deep},"secret":${deep},"answer":${deep}}` : deep;
    return { kind: `deep-${shape}-${n}`, contentType: 'application/json', body: Buffer.from(text) };
  });

/** Bytes that are not valid UTF-8, or encodings we do not speak, inside otherwise plausible JSON and forms. */
export const badEncodingArb: fc.Arbitrary<HostileBody> = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((raw): HostileBody => {
    const bytes = SIDESTEP_SEMICOLON_BUG ? raw.map((b) => (b === 0x3b ? 0x2c : b)) : raw;
    return {
      kind: 'json-random-bytes',
      contentType: 'application/json',
      body: Buffer.concat([
        Buffer.from('{"url":"'),
        Buffer.from(bytes),
        Buffer.from('","sitekey":"'),
        Buffer.from(bytes),
        Buffer.from('"}'),
      ]),
    };
  }),
  fc.constantFrom<HostileBody>(
    {
      kind: 'invalid-utf8',
      contentType: 'application/json',
      body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    },
    {
      kind: 'overlong-utf8',
      contentType: 'application/json',
      body: Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]),
    },
    {
      kind: 'lone-surrogate-escape',
      contentType: 'application/json',
      body: Buffer.from('{"url":"\\ud800","sitekey":"\\udc00x","secret":"\\ud83d","answer":"\\udfff"}'),
    },
    {
      kind: 'nul-escape',
      contentType: 'application/json',
      body: Buffer.from(
        '{"url":"\\u0000","sitekey":"a\\u0000","secret":"\\u0000","answer":"\\u0000","nonce":"1\\u0000"}',
      ),
    },
    { kind: 'raw-nul', contentType: 'application/json', body: Buffer.from('{"a":"\u0000"}\u0000') },
    {
      kind: 'bom',
      contentType: 'application/json',
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"sitekey":"x"}')]),
    },
    { kind: 'utf16', contentType: 'application/json; charset=utf-16', body: Buffer.from('{"sitekey":"x"}', 'utf16le') },
    { kind: 'unknown-charset', contentType: 'application/json; charset=klingon', body: Buffer.from('{"sitekey":"x"}') },
    {
      kind: 'latin1-form',
      contentType: 'application/x-www-form-urlencoded; charset=iso-8859-1',
      body: Buffer.from([0x61, 0x3d, 0xe9, 0xff]),
    },
    {
      kind: 'form-bad-escapes',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('a=%&b=%zz&%ff=%fe&c=%E0%A4%A&d=%00'),
    },
    { kind: 'gzip-not-gzip', contentType: 'application/json', body: Buffer.from('{"x":1}') },
  ),
);

/** Syntactically broken JSON and JSON of the wrong top-level kind. */
export const malformedJsonArb: fc.Arbitrary<HostileBody> = fc
  .oneof(
    fc.constantFrom(
      '{',
      '}',
      '{"a":',
      '{"a" 1}',
      "{'a':1}",
      '{"a":1,}',
      '[1,]',
      'nul',
      'null',
      'true',
      '1',
      '"x"',
      '[]',
      '{}{}',
      'NaN',
      '{"a":1e99999}',
      ' ',
    ),
    fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
    fc.string({ maxLength: 50 }),
  )
  .map((text): HostileBody => ({
    kind: `malformed-json:${text.slice(0, 40)}`,
    contentType: 'application/json',
    body: Buffer.from(text),
  }));

/** Content types other than JSON and forms, and JSON under the wrong label. */
export const wrongContentTypeArb: fc.Arbitrary<HostileBody> = fc
  .tuple(
    fc.constantFrom(
      undefined,
      'text/plain',
      'text/html',
      'application/xml',
      'multipart/form-data; boundary=x',
      'multipart/form-data',
      'application/octet-stream',
      'application/x-www-form-urlencoded-junk',
      'application/jsonx',
      'json',
      ';;;',
      'application/json; charset',
      'application/json; boundary="',
      '*/*',
      'image/png',
    ),
    fc.constantFrom(
      '{"sitekey":"x","url":"http://x.invalid/"}',
      'secret=x&response=y',
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--',
      '<a/>',
      '\x89PNG',
    ),
  )
  .map(([contentType, text]): HostileBody => ({
    kind: `content-type:${contentType}`,
    contentType,
    body: Buffer.from(text),
  }));

/** A body past BODY_LIMIT_BYTES, declared or chunked. */
export const oversizedArb: fc.Arbitrary<HostileBody> = fc
  .tuple(
    fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 2 }),
    fc.boolean(),
    fc.constantFrom('application/json', 'application/x-www-form-urlencoded'),
  )
  .map(([n, chunked, contentType]): HostileBody => {
    const filler = 'a'.repeat(n);
    const text = contentType === 'application/json' ? `{"url":"${filler}"}` : `url=${filler}`;
    return { kind: `oversized-${n}${chunked ? '-chunked' : ''}`, contentType, body: Buffer.from(text), chunked };
  });

/** Bodies built from an object: JSON or form, sometimes chunked. */
export function encodedObjectArb(object: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<HostileBody> {
  return fc
    .tuple(object, fc.constantFrom('json', 'form', 'json-chunked') as fc.Arbitrary<string>)
    .map(([value, how]) => {
      const safe = defang(value);
      if (how === 'form')
        return { kind: 'form', contentType: 'application/x-www-form-urlencoded', body: Buffer.from(formEncode(safe)) };
      return {
        kind: how,
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify(safe)),
        chunked: how === 'json-chunked',
      };
    });
}

// ---------------------------------------------------------------------------------------
// Schemas from the OpenAPI document

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  default?: unknown;
}

/** Values the schema accepts, for fields we know the meaning of from the world. */
export function validFor(name: string, schema: JsonSchema | undefined, world: World): fc.Arbitrary<unknown> {
  if (name === 'url') return urlArb(world);
  if (name === 'sitekey') return fc.constantFrom(world.sitekey, ...Object.values(TEST_SITEKEYS), 'sk_unknown');
  if (name === 'secret') return fc.constantFrom(world.secret, ...Object.values(TEST_SECRETS), 'sec_unknown');
  if (name === 'project') return fc.constantFrom(...world.projects, 'nothing.invalid');
  if (!schema) return fc.string({ maxLength: 10 });
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validFor(name, s, world)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'object':
      return fc.record(
        Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, validFor(k, s, world)])),
        { requiredKeys: [] },
      );
    default:
      if (schema.pattern)
        return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 64));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 20) });
  }
}

/**
 * An object for a body schema: each declared field missing, valid, or hostile (wrong type,
 * huge, NUL, unicode); plus unknown fields, some of them prototype-polluting.
 */
export function objectFor(schema: JsonSchema | undefined, world: World): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema?.properties ?? {});
  const fields = props.map(([name, s]) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 5, arbitrary: validFor(name, s, world) },
      { weight: 2, arbitrary: hostileValue },
    ),
  );
  const extras = fc.dictionary(
    fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'id', 'user_id', 'owner_id')),
    hostileValue,
    {
      maxKeys: 3,
    },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([values, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(extra))
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    props.forEach(([name], i) => {
      if (values[i] !== undefined) out[name] = values[i];
    });
    return out;
  });
}
