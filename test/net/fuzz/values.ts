/**
 * Hostile values of every kind for the wire's decoders: strings, numbers, CBOR values, byte edits
 * of valid frames, objects with one field wrong, and nesting 10^5 deep.
 */
import { encode } from 'cborg';
import fc from 'fast-check';
import { expect } from 'vitest';
import { MAX_K } from '../../../src/net/codec.ts';

export const SIGNING_DOMAIN = new TextEncoder().encode('cidx/record/v1\0');
export const SWARM = new Uint8Array(32).fill(7);

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Strings of every kind: ASCII, any code point, lone surrogates, multi-byte characters. */
export const anyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.oneof(loneSurrogate, fc.constantFrom('a', 'é', '€', '😀')), maxLength: 8 }),
);
const FIELD_NAMES = [
  'v',
  't',
  'w',
  'r',
  'k',
  's',
  'p',
  'o',
  'n',
  'a',
  'id',
  'ok',
  'code',
  'msg',
  'swarm',
  'key',
  'profile',
  'rec',
  'desc',
  'kind',
  'sim',
  'for',
  'recs',
  'tomb',
  'params',
  'outcome',
  '__proto__',
  'toString',
  'valueOf',
  'constructor',
];
const mapKey = fc.oneof(fc.constantFrom(...FIELD_NAMES), anyString);
/** Numbers a field should refuse, or only just accept. */
export const hostileNumber = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    1.5,
    MAX_K,
    MAX_K + 1,
    2 ** 31,
    2 ** 53,
    2 ** 53 + 2,
    1e300,
    -1e300,
    Number.MIN_VALUE,
    Number.MAX_VALUE,
    Number.MAX_SAFE_INTEGER,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.integer(),
  fc.double(),
  fc.maxSafeInteger(),
);
/** Anything CBOR encodes (undefined, NaN and big integers included: the decoder refuses them). */
const cborLeaf = fc.oneof(
  hostileNumber,
  anyString,
  fc.uint8Array({ maxLength: 70 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n - 1n }),
);
export const { value: cborValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, cborLeaf, tie('array'), tie('map')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(mapKey, tie('value'), { maxKeys: 4 }),
}));

/** CBOR of a value; values cborg cannot encode become the encoding of null. */
export function cbor(value: unknown): Uint8Array {
  // Distinct keys with lone surrogates encode alike (U+FFFD): a duplicate map key, which the
  // decoder must refuse. cborg warns about it on the console; that warning is expected here.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return encode(value);
  } catch {
    return encode(null);
  } finally {
    console.warn = warn;
  }
}

/** Byte edits: flip a bit, set a byte, cut, insert, drop, repeat the tail. */
export const edit = fc.record({
  op: fc.constantFrom('flip', 'set', 'cut', 'insert', 'drop', 'repeat'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
});
export type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;

export function applyEdits(bytes: Uint8Array, edits: Edit[]): Uint8Array {
  let b = Uint8Array.from(bytes);
  for (const e of edits) {
    const i = b.length === 0 ? 0 : e.at % b.length;
    switch (e.op) {
      case 'flip':
        if (b.length > 0) b[i] = (b[i] as number) ^ (1 << (e.byte & 7));
        break;
      case 'set':
        if (b.length > 0) b[i] = e.byte;
        break;
      case 'cut':
        b = b.slice(0, i);
        break;
      case 'insert':
        b = Uint8Array.from([...b.subarray(0, i), e.byte, ...b.subarray(i)]);
        break;
      case 'drop':
        b = Uint8Array.from([...b.subarray(0, i), ...b.subarray(i + 1)]);
        break;
      case 'repeat':
        b = Uint8Array.from([...b, ...b.subarray(i)]);
        break;
    }
  }
  return b;
}

export const mutated = (frames: fc.Arbitrary<Uint8Array>) =>
  fc
    .tuple(frames, fc.array(edit, { minLength: 1, maxLength: 4 }))
    .map(([b, edits]) => applyEdits(b, edits));

/** A plain object with one field replaced by a hostile value, removed, or one field added. */
export const withBadField = <T extends object>(base: fc.Arbitrary<T>) =>
  fc
    .tuple(
      base,
      fc.nat(),
      fc.oneof(cborValue, hostileNumber),
      fc.constantFrom('set', 'delete', 'add'),
      mapKey,
    )
    .map(([obj, i, value, how, extra]) => {
      const o = { ...obj } as Record<string, unknown>;
      const keys = Object.keys(o);
      const key = keys[i % keys.length] as string;
      if (how === 'set') o[key] = value;
      else if (how === 'delete') delete o[key];
      else Object.defineProperty(o, extra, { value, enumerable: true, writable: true });
      return o;
    });

export const bytesOf = (minLength: number, maxLength: number) =>
  fc.uint8Array({ minLength, maxLength });
export const hex64 = bytesOf(32, 32).map((b) => Buffer.from(b).toString('hex'));
export const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
/** Strings that survive UTF-8 (no lone surrogates), as every string of a real message does. */
export const wellFormed = fc.string({ unit: 'grapheme', maxLength: 10 });
export const asciiUpTo = (maxLength: number) => fc.string({ maxLength });

export const DEEP = 100_000;
/** CBOR of `depth` nested one-element arrays around 1. */
export function deepArrays(depth: number): Uint8Array {
  const b = new Uint8Array(depth + 1).fill(0x81);
  b[depth] = 0x01;
  return b;
}
/** CBOR of `depth` nested one-entry maps {"a": …} around 1. */
export function deepMaps(depth: number): Uint8Array {
  const b = new Uint8Array(depth * 3 + 1);
  for (let i = 0; i < depth; i++) b.set([0xa1, 0x61, 0x61], i * 3);
  b[depth * 3] = 0x01;
  return b;
}
/** The CBOR of `msg` with the value of `field` (a byte-string placeholder) replaced by `inner`. */
export function embed(msg: Record<string, unknown>, field: string, inner: Uint8Array): Uint8Array {
  const mark = new Uint8Array(16).fill(0xee);
  const bytes = encode({ ...msg, [field]: mark });
  const at = Buffer.from(bytes).indexOf(Buffer.from([0x50, ...mark]));
  expect(at).toBeGreaterThanOrEqual(0);
  return Uint8Array.from([...bytes.subarray(0, at), ...inner, ...bytes.subarray(at + 17)]);
}
