/**
 * JSON for many objects of few shapes, as the memory challenge store holds them: each distinct
 * list of top-level keys is kept once, and an object is stored as the JSON array of its shape's
 * number and its values (-1 and the object itself past `maxShapes`). The keys of a v1 challenge state are about 40% of its JSON, and a flood
 * of image challenges is held (up to the store's entry cap) for the challenges' whole lifetime.
 *
 * `decode(encode(x))` equals `JSON.parse(JSON.stringify(x))` for a plain object: keys whose
 * value is undefined (or a function or symbol) are left out, as JSON.stringify leaves them out.
 */
export class CompactJson {
  private readonly shapes: string[][] = [];
  private readonly shapeIds = new Map<string, number>();

  /** Past this many shapes an object is stored as plain JSON (a bound, never reached by our states). */
  constructor(private readonly maxShapes = 64) {}

  /** The stored text of `value`, flat (see {@link flatString}). */
  encode(value: object): string {
    return flatString(this.stringify(value));
  }

  private stringify(value: object): string {
    const record = value as Record<string, unknown>;
    if (Array.isArray(value) || typeof record['toJSON'] === 'function') return JSON.stringify([-1, value]);
    const keys = Object.keys(record).filter((k) => {
      const v = record[k];
      return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
    });
    const signature = keys.join('\u0000');
    let id = this.shapeIds.get(signature);
    if (id === undefined) {
      if (this.shapes.length >= this.maxShapes) return JSON.stringify([-1, value]);
      id = this.shapes.length;
      this.shapes.push(keys);
      this.shapeIds.set(signature, id);
    }
    return JSON.stringify([id, ...keys.map((k) => record[k])]);
  }

  decode(text: string): unknown {
    const [id, ...values] = JSON.parse(text) as [number, ...unknown[]];
    if (id === -1) return values[0];
    const keys = this.shapes[id];
    // fromEntries defines own properties, as JSON.parse does (a "__proto__" key stays a key).
    return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
  }
}

/**
 * `text`, flattened in place. V8 builds the result of JSON.stringify (and of `a + b`) as a
 * tree of parts; a string kept for minutes keeps the tree: about 100 extra bytes for a
 * 200-character challenge state (measured with heapUsed over 100,000 states: 323 against 225
 * bytes each). Reading a character makes V8 flatten the string, and the GC then drops the parts.
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}
