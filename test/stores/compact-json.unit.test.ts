import { describe, expect, it } from 'vitest';
import { CompactJson } from '../../src/stores/compact-json.ts';

describe('CompactJson', () => {
  const roundTrip = (codec: CompactJson, value: object) => codec.decode(codec.encode(value));

  it('gives back what JSON would, for every shape of a challenge state', () => {
    const codec = new CompactJson();
    const states: object[] = [
      { kind: 'v1', site: 'sk_x', attempts: 0, action: null, cdata: 'é\n"', nested: { a: [1, { b: null }] } },
      { kind: 'v1', site: 'sk_y', attempts: 2, action: 'login', cdata: null, nested: { a: [] } },
      { left: undefined, fn: () => 1, kept: true, when: new Date(0) },
      JSON.parse('{"__proto__":{"polluted":true},"x":1}') as object,
      {},
      [1, 2, 3],
      { toJSON: () => ({ replaced: true }) },
    ];
    for (const s of states) expect(roundTrip(codec, s)).toEqual(JSON.parse(JSON.stringify(s)));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('stores each key list once: a state costs about the JSON of its values', () => {
    const codec = new CompactJson();
    const state = { kind: 'v1', site: 'sk_abc', hostname: 'example.com', attempts: 0, regenerations: 0 };
    const stored = codec.encode(state);
    expect(stored).toBe(JSON.stringify([0, 'v1', 'sk_abc', 'example.com', 0, 0]));
    expect(stored.length).toBeLessThan(JSON.stringify(state).length * 0.6);
    expect(codec.encode({ ...state, attempts: 1 })).toBe(JSON.stringify([0, 'v1', 'sk_abc', 'example.com', 1, 0]));
  });

  it('falls back to plain JSON past its shape bound', () => {
    const codec = new CompactJson(2);
    const many = Array.from({ length: 5 }, (_, i) => ({ [`k${i}`]: i }));
    for (const s of many) expect(roundTrip(codec, s)).toEqual(s);
    expect(codec.encode({ k4: 4 })).toBe(JSON.stringify([-1, { k4: 4 }]));
  });
});
