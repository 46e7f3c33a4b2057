import { describe, expect, it } from 'vitest';
import { encodeWithRaw, RawJson } from '../src/raw-json.ts';

/** The text of encodeWithRaw's body, whether it is the string or its UTF-8 bytes. */
function stringifyWithRaw(value: unknown): string {
  const body = encodeWithRaw(value);
  return typeof body === 'string' ? body : body.toString('utf8');
}

describe('stringifyWithRaw', () => {
  it('writes stored JSON text in place, unparsed, and everything else as JSON.stringify does', () => {
    const value = {
      a: 1,
      s: 'x"\u0001raw-0',
      list: [new RawJson('{"b":[1,2]}'), new RawJson('null')],
      nested: { r: new RawJson('"t"') },
    };
    const text = stringifyWithRaw(value);
    expect(text).toBe('{"a":1,"s":"x\\"\\u0001raw-0","list":[{"b":[1,2]},null],"nested":{"r":"t"}}');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('keeps JSON text byte for byte (no re-serialisation)', () => {
    const stored = '{"z": 1, "a": [true,  false]}';
    expect(stringifyWithRaw({ r: new RawJson(stored) })).toBe(`{"r":${stored}}`);
  });

  it('parses when serialised any other way (tRPC, logs)', () => {
    expect(JSON.stringify({ r: new RawJson('{"k":"v"}') })).toBe('{"r":{"k":"v"}}');
  });

  it('is plain JSON.stringify without RawJson', () => {
    const value = { a: [1, 'two', null], b: { c: true } };
    expect(stringifyWithRaw(value)).toBe(JSON.stringify(value));
  });
});

describe('encodeWithRaw', () => {
  it('is the same JSON as UTF-8 bytes when it splices stored text, and the string otherwise', () => {
    const value = { a: 'é', list: [new RawJson('{"t":"naïve ☃ 𝄞"}'), new RawJson('[1]')], z: '\u2028' };
    const body = encodeWithRaw(value);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(Buffer.from(stringifyWithRaw(value), 'utf8'))).toBe(true);
    expect(JSON.parse((body as Buffer).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(encodeWithRaw({ a: [1, 'two'] })).toBe('{"a":[1,"two"]}');
  });
});
