/**
 * Hostile input for every decoder of the wire protocol (fast-check, 10,000 cases a property):
 * `decodeRequest` / `decodeResponse` (codec), `openRecord` (signed records), `profileFromWire`
 * and `parseProfile`. Inputs: random bytes; valid frames with bytes flipped, cut, inserted or
 * repeated; messages with a field wrongly typed, missing or extra; NaN / ±Infinity / negative /
 * zero weights; duplicate attributes and relations; out-of-range k; wrong wire versions; deep
 * nesting; a million attributes.
 *
 * Property: a decoder returns a value its schema accepts, or throws its own error class
 * (CodecError, RecordError, FieldError; ProfileError is a FieldError) with a message; never a
 * TypeError, a RangeError or a stack overflow. Valid frames round-trip. A profile over the limits
 * is refused from its counts, before a single entry is read (checked by counting the reads, not
 * by timing them).
 *
 * Found and fixed (the regressions are kept as examples):
 * - a message whose `v` is a map such as {toString: 0} made decodeRequest / decodeResponse throw
 *   a TypeError (String() of it, for the wrong-version message);
 * - profileFromWire built the object of a million attributes (~2 s) before refusing it, and
 *   openRecord validated each of them (~1 s more) before the limits were applied.
 */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { encode } from 'cborg';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedBlob, SignedRecord } from '../../src/index/records.ts';
import {
  CodecError,
  decodeRequest,
  decodeResponse,
  ERROR_CODES,
  encodeMessage,
  MAX_K,
  type Request,
  type Response,
  requestSchema,
  responseSchema,
} from '../../src/net/codec.ts';
import {
  checkContactAddr,
  communityId,
  MAX_ADDR_CHARS,
  MAX_CONTACTS,
  NONCE_BYTES,
  openRecord,
  type RecordContent,
  RecordError,
  signRecord,
} from '../../src/net/records.ts';
import { profileFromWire, type WireProfile } from '../../src/net/wire-profile.ts';
import { FieldError, ProfileError } from '../../src/profile/errors.ts';
import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_RELATIONS,
  MAX_ATTRIBUTE_BYTES,
  type ParseOptions,
  parseProfile,
} from '../../src/profile/parse.ts';
import { Profile } from '../../src/profile/profile.ts';
import { definedOnly } from '../../src/util/defined.ts';

const RUNS = 10_000;
const SIGNING_DOMAIN = new TextEncoder().encode('cidx/record/v1\0');

// ---------------------------------------------------------------------------------------------
// Checking one call

type ErrorClass = abstract new (...args: never[]) => Error;

function describeThrown(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : `non-Error ${String(err)}`;
}

/** The decoder's own error, with a message; anything else fails the property. */
function checkThrown(err: unknown, cls: ErrorClass): Error {
  if (!(err instanceof cls)) {
    throw new Error(`threw ${describeThrown(err)} instead of a ${cls.name}`, { cause: err });
  }
  expect(typeof err.message).toBe('string');
  expect(err.message.trim().length).toBeGreaterThan(0);
  return err;
}

/** Runs a decoder: its value, or null when it threw its own error class. */
function attempt<T>(fn: () => T, cls: ErrorClass): T | null {
  try {
    return fn();
  } catch (err) {
    checkThrown(err, cls);
    return null;
  }
}

async function attemptAsync<T>(fn: () => Promise<T>, cls: ErrorClass): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    checkThrown(err, cls);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Strings of every kind: ASCII, any code point, lone surrogates, multi-byte characters. */
const anyString = fc.oneof(
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
const hostileNumber = fc.oneof(
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
const { value: cborValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, cborLeaf, tie('array'), tie('map')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(mapKey, tie('value'), { maxKeys: 4 }),
}));

/** CBOR of a value; values cborg cannot encode become the encoding of null. */
function cbor(value: unknown): Uint8Array {
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
const edit = fc.record({
  op: fc.constantFrom('flip', 'set', 'cut', 'insert', 'drop', 'repeat'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
});
type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;

function applyEdits(bytes: Uint8Array, edits: Edit[]): Uint8Array {
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

const mutated = (frames: fc.Arbitrary<Uint8Array>) =>
  fc
    .tuple(frames, fc.array(edit, { minLength: 1, maxLength: 4 }))
    .map(([b, edits]) => applyEdits(b, edits));

/** A plain object with one field replaced by a hostile value, removed, or one field added. */
const withBadField = <T extends object>(base: fc.Arbitrary<T>) =>
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

const bytesOf = (minLength: number, maxLength: number) => fc.uint8Array({ minLength, maxLength });
const hex64 = bytesOf(32, 32).map((b) => Buffer.from(b).toString('hex'));
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
/** Strings that survive UTF-8 (no lone surrogates), as every string of a real message does. */
const wellFormed = fc.string({ unit: 'grapheme', maxLength: 10 });
const asciiUpTo = (maxLength: number) => fc.string({ maxLength });

/** Wire profiles the codec's schema accepts (the profile rules are checked later). */
const schemaWireProfile: fc.Arbitrary<WireProfile> = fc.record(
  {
    w: fc.array(fc.tuple(wellFormed, finite), { maxLength: 8 }),
    r: fc.array(fc.tuple(wellFormed, wellFormed, finite), { maxLength: 4 }),
  },
  { requiredKeys: ['w'], noNullPrototype: true },
);
const signedArb = fc.record(
  { p: bytesOf(0, 80), o: bytesOf(0, 50), s: bytesOf(0, 70) },
  { noNullPrototype: true },
);
const reqBase = { v: fc.constant(1 as const), swarm: bytesOf(32, 32) };
const count = fc.integer({ min: 0, max: MAX_K });
const rec = (o: Record<string, fc.Arbitrary<unknown>>, requiredKeys?: string[]) =>
  fc.record(o, requiredKeys ? { requiredKeys, noNullPrototype: true } : { noNullPrototype: true });

const validRequest = fc.oneof(
  rec({
    ...reqBase,
    t: fc.constant('query'),
    key: bytesOf(1, 64),
    profile: schemaWireProfile,
    k: count,
  }),
  rec({ ...reqBase, t: fc.constant('store'), key: bytesOf(1, 64), rec: signedArb, s: count }),
  rec({ ...reqBase, t: fc.constant('update'), key: bytesOf(1, 64), rec: signedArb, s: count }),
  rec({ ...reqBase, t: fc.constant('remove'), rec: signedArb }),
  rec({ ...reqBase, t: fc.constant('contacts-put'), rec: signedArb, desc: signedArb }, [
    'v',
    'swarm',
    't',
    'rec',
  ]),
  rec({ ...reqBase, t: fc.constant('contacts-get'), id: hex64 }),
  rec({
    ...reqBase,
    t: fc.constant('notify'),
    kind: fc.constantFrom('created', 'updated'),
    rec: signedArb,
    sim: fc.double({ min: 0, max: 1e9, noNaN: true }),
    for: hex64,
  }),
  rec({ ...reqBase, t: fc.constant('params') }),
) as fc.Arbitrary<Request>;

const validResponse = fc.oneof(
  rec(
    {
      v: fc.constant(1),
      ok: fc.constant(true),
      outcome: asciiUpTo(32),
      recs: fc.array(signedArb, { maxLength: 4 }),
      rec: signedArb,
      desc: signedArb,
      tomb: signedArb,
      params: fc.jsonValue({ maxDepth: 3 }),
    },
    ['v', 'ok'],
  ),
  rec(
    {
      v: fc.constant(1),
      ok: fc.constant(false),
      code: fc.constantFrom(...ERROR_CODES),
      msg: asciiUpTo(200),
      params: fc.jsonValue({ maxDepth: 3 }),
    },
    ['v', 'ok', 'code', 'msg'],
  ),
) as fc.Arbitrary<Response>;

// Hostile profiles: attribute names and weights of every kind, duplicates, unknown relation ends.
const LONG_NAMES = ['x'.repeat(MAX_ATTRIBUTE_BYTES), 'x'.repeat(MAX_ATTRIBUTE_BYTES + 1)];
LONG_NAMES.push('é'.repeat(MAX_ATTRIBUTE_BYTES / 2), 'é'.repeat(MAX_ATTRIBUTE_BYTES / 2 + 1));
const attrName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c', 'd') },
  fc.constantFrom('', '__proto__', 'toString', 'constructor', '0', '1', '-1', ...LONG_NAMES),
  anyString,
);
const weightValue = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: 0.001, max: 10 }) },
  hostileNumber,
);
/** Wire profiles as profileFromWire takes them (the codec's schema holds), rules broken freely. */
const hostileWireProfile: fc.Arbitrary<WireProfile> = fc
  .tuple(
    fc.array(fc.tuple(attrName, weightValue), { maxLength: 7 }),
    fc.option(
      fc.array(fc.tuple(fc.oneof(fc.nat(), attrName), fc.oneof(fc.nat(), attrName), weightValue), {
        maxLength: 6,
      }),
      { nil: undefined },
    ),
  )
  .map(([w, r]) => {
    const names = w.map(([a]) => a);
    // Relation ends mostly pick attributes of the profile, so that later rules are reached.
    const end = (e: number | string) =>
      typeof e === 'number' && names.length > 0 ? (names[e % names.length] as string) : String(e);
    const out: WireProfile = { w };
    if (r !== undefined) out.r = r.map(([a, b, x]) => [end(a), end(b), x]);
    return out;
  });
const limitsArb: fc.Arbitrary<ParseOptions> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  fc.record({
    maxAttributes: fc.integer({ min: 1, max: 5 }),
    maxRelations: fc.integer({ min: 1, max: 3 }),
  }),
);

// ---------------------------------------------------------------------------------------------
// Oracles and schema checks

function nameOk(a: string): boolean {
  return a.length > 0 && a.isWellFormed() && Buffer.byteLength(a, 'utf8') <= MAX_ATTRIBUTE_BYTES;
}

const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
const nonNegative = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** Whether the profile rules accept these weights and relations (written independently). */
function profileVerdict(
  weights: [string, unknown][],
  relations: unknown,
  limits: ParseOptions,
): boolean {
  const maxA = limits.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxR = limits.maxRelations ?? DEFAULT_MAX_RELATIONS;
  const names = new Set(weights.map(([a]) => a));
  if (names.size !== weights.length || names.size === 0 || names.size > maxA) return false;
  if (!weights.every(([a, w]) => nameOk(a) && positive(w))) return false;
  if (relations === undefined) return true;
  if (!Array.isArray(relations) || relations.length > maxR) return false;
  const pairs = new Set<string>();
  for (const item of relations) {
    if (!Array.isArray(item) || item.length !== 3) return false;
    const [a, b, rel] = item as unknown[];
    if (typeof a !== 'string' || typeof b !== 'string') return false;
    if (!names.has(a) || !names.has(b) || a === b || !nonNegative(rel)) return false;
    const pair = JSON.stringify([a, b].sort());
    if (pairs.has(pair)) return false;
    pairs.add(pair);
  }
  return true;
}

/** A profile every rule holds for, holding exactly these weights and relations. */
function checkProfile(p: Profile, weights: [string, unknown][], relations: unknown): void {
  expect(p).toBeInstanceOf(Profile);
  const byName = (x: readonly unknown[], y: readonly unknown[]) =>
    String(x[0]) < String(y[0]) ? -1 : String(x[0]) > String(y[0]) ? 1 : 0;
  expect([...p.weights].sort(byName)).toEqual([...weights].sort(byName));
  for (const [a, w] of p.weights) expect(nameOk(a) && positive(w)).toBe(true);
  expect(p.isMatrix).toBe(relations !== undefined);
  expect(p.relations).toEqual(relations ?? []);
  // what the profile says of itself parses back to the same profile
  expect(parseProfile(p.toJSON()).toJSON()).toEqual(p.toJSON());
}

function checkRecord(r: SignedRecord, blob: SignedBlob, limits: ParseOptions): void {
  expect(r.id).toMatch(/^[0-9a-f]{64}$/);
  expect(r.nonce).toBeInstanceOf(Uint8Array);
  expect(r.nonce.length).toBe(NONCE_BYTES);
  expect(r.id).toBe(communityId(blob.owner, r.nonce));
  expect(Number.isSafeInteger(r.version) && r.version >= 1).toBe(true);
  expect(r.owner).toEqual(blob.owner);
  switch (r.kind) {
    case 'descriptor': {
      expect(r.profile).toBeInstanceOf(Profile);
      const json = r.profile.toJSON();
      const reparsed = parseProfile(json, limits);
      expect(reparsed.toJSON()).toEqual(json);
      break;
    }
    case 'contacts':
      expect(r.addrs.length).toBeLessThanOrEqual(MAX_CONTACTS);
      for (const a of r.addrs) {
        expect(a.length).toBeLessThanOrEqual(MAX_ADDR_CHARS);
        checkContactAddr(a);
      }
      break;
    case 'removal':
      expect(r.key.length >= 1 && r.key.length <= 64).toBe(true);
      break;
    case 'tombstone':
      break;
  }
}

/** CBOR (cborg) carries -0 as the integer 0: the same number to every rule, so compare so. */
function zeroes(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(zeroes);
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, zeroes(x)]));
}

/** Whether the frame decoded (to a schema-valid request); false when refused with a CodecError. */
function checkRequest(bytes: Uint8Array): boolean {
  const r = attempt(() => decodeRequest(bytes), CodecError);
  if (r !== null) expect(requestSchema.safeParse(r).success).toBe(true);
  return r !== null;
}

function checkResponse(bytes: Uint8Array): boolean {
  const r = attempt(() => decodeResponse(bytes), CodecError);
  if (r !== null) expect(responseSchema.safeParse(r).success).toBe(true);
  return r !== null;
}

/**
 * Counts accepted and refused inputs, so that a test can check that its generator reaches both
 * (a generator whose every input is refused at the first byte would prove little).
 */
function tally() {
  const t = { accepted: 0, refused: 0 };
  return {
    t,
    note(accepted: boolean) {
      if (accepted) t.accepted++;
      else t.refused++;
    },
    /** Both outcomes at least `share` of the cases. */
    expectBoth(share = 0.05) {
      const total = t.accepted + t.refused;
      expect(t.accepted, JSON.stringify(t)).toBeGreaterThanOrEqual(total * share);
      expect(t.refused, JSON.stringify(t)).toBeGreaterThanOrEqual(total * share);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Deep nesting and a million attributes, built once

const DEEP = 100_000;
/** CBOR of `depth` nested one-element arrays around 1. */
function deepArrays(depth: number): Uint8Array {
  const b = new Uint8Array(depth + 1).fill(0x81);
  b[depth] = 0x01;
  return b;
}
/** CBOR of `depth` nested one-entry maps {"a": …} around 1. */
function deepMaps(depth: number): Uint8Array {
  const b = new Uint8Array(depth * 3 + 1);
  for (let i = 0; i < depth; i++) b.set([0xa1, 0x61, 0x61], i * 3);
  b[depth * 3] = 0x01;
  return b;
}
/** The CBOR of `msg` with the value of `field` (a byte-string placeholder) replaced by `inner`. */
function embed(msg: Record<string, unknown>, field: string, inner: Uint8Array): Uint8Array {
  const mark = new Uint8Array(16).fill(0xee);
  const bytes = encode({ ...msg, [field]: mark });
  const at = Buffer.from(bytes).indexOf(Buffer.from([0x50, ...mark]));
  expect(at).toBeGreaterThanOrEqual(0);
  return Uint8Array.from([...bytes.subarray(0, at), ...inner, ...bytes.subarray(at + 17)]);
}

const SWARM = new Uint8Array(32).fill(7);
const A_QUERY = {
  v: 1,
  swarm: SWARM,
  t: 'query',
  key: new Uint8Array([1]),
  profile: { w: [['a', 1]] },
  k: 5,
};
/** Versions that are not this node's wire version 1. */
const WRONG_VERSIONS: unknown[] = [
  0,
  2,
  -1,
  1.5,
  255,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  '1',
  'x'.repeat(10_000),
  true,
  null,
  [1],
  { toString: 0 },
  { toString: 0, valueOf: 0 },
  new Uint8Array([1]),
  2n ** 64n - 1n,
  -(2n ** 64n),
];

// ---------------------------------------------------------------------------------------------

describe('wire codec under hostile frames', () => {
  const requestFrames = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    validRequest.map(encodeMessage),
    mutated(validRequest.map(encodeMessage)),
    withBadField(validRequest).map(cbor),
    mutated(withBadField(validRequest).map(cbor)),
    fc.tuple(validRequest, fc.oneof(cborValue, hostileNumber)).map(([r, v]) => cbor({ ...r, v })),
    fc
      .tuple(validRequest, hostileWireProfile, fc.oneof(count, hostileNumber))
      .map(([r, profile, k]) => cbor({ ...r, t: 'query', key: new Uint8Array([1]), profile, k })),
    cborValue.map(cbor),
  );

  it('decodeRequest: a schema-valid request or a CodecError, for 10,000 hostile frames', () => {
    const seen = tally();
    fc.assert(
      fc.property(requestFrames, (b) => seen.note(checkRequest(b))),
      {
        numRuns: RUNS,
        examples: [
          // regressions: a version that String() cannot print threw a TypeError
          [encode({ v: { toString: 0 }, t: 'params' })],
          [encode({ v: { toString: 0, valueOf: 0 }, swarm: SWARM, t: 'params' })],
          [deepArrays(DEEP)],
          [new Uint8Array()],
        ],
      },
    );
    seen.expectBoth();
  });

  const responseFrames = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    validResponse.map(encodeMessage),
    mutated(validResponse.map(encodeMessage)),
    withBadField(validResponse).map(cbor),
    mutated(withBadField(validResponse).map(cbor)),
    fc.tuple(validResponse, fc.oneof(cborValue, hostileNumber)).map(([r, v]) => cbor({ ...r, v })),
    fc
      .tuple(fc.array(fc.oneof(signedArb, cborValue), { maxLength: 5 }), anyString, cborValue)
      .map(([recs, outcome, params]) => cbor({ v: 1, ok: true, recs, outcome, params })),
    cborValue.map(cbor),
  );

  it('decodeResponse: a schema-valid response or a CodecError, for 10,000 hostile frames', () => {
    const seen = tally();
    fc.assert(
      fc.property(responseFrames, (b) => seen.note(checkResponse(b))),
      {
        numRuns: RUNS,
        examples: [
          [encode({ v: { toString: 0 }, ok: true })],
          [deepMaps(DEEP)],
          [encode({ v: 1, ok: false, code: 'busy', msg: 'x'.repeat(4097) })],
        ],
      },
    );
    seen.expectBoth();
  });

  it('round-trips 10,000 valid requests and 10,000 valid responses', () => {
    fc.assert(
      fc.property(validRequest, (r) => {
        expect(decodeRequest(encodeMessage(r))).toEqual(zeroes(r));
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(validResponse, (r) => {
        expect(decodeResponse(encodeMessage(r))).toEqual(zeroes(r));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses 10^5-deep nesting anywhere in a message with a CodecError', () => {
    for (const deep of [deepArrays(DEEP), deepMaps(DEEP), deepArrays(1_000), deepMaps(1_000)]) {
      for (const bytes of [
        deep,
        embed(A_QUERY, 'profile', deep),
        embed(A_QUERY, 'v', deep),
        embed({ ...A_QUERY, t: 'store', rec: 0, s: 1 }, 'rec', deep),
      ]) {
        expect(attempt(() => decodeRequest(bytes), CodecError)).toBeNull();
      }
      const response = embed({ v: 1, ok: true, params: 0 }, 'params', deep);
      // `params` is free-form: what the CBOR decoder accepts may be returned, but nothing else
      checkResponse(response);
      checkResponse(embed({ v: 1, ok: true, recs: 0 }, 'recs', deep));
    }
  });

  it('refuses every wrong wire version with a CodecError that says so', () => {
    for (const v of WRONG_VERSIONS) {
      for (const [decode, msg] of [
        [decodeRequest, { ...A_QUERY, v }],
        [decodeResponse, { v, ok: true }],
      ] as const) {
        let thrown: unknown;
        try {
          decode(encode(msg));
        } catch (err) {
          thrown = err;
        }
        const err = checkThrown(thrown, CodecError);
        expect(err.message).toMatch(/wire version|not valid CBOR/);
      }
    }
  });

  it('refuses out-of-range k and malformed weights in a query', () => {
    for (const k of [-1, MAX_K + 1, 1.5, 1e9, -0.5, 2 ** 53]) {
      expect(() => decodeRequest(encode({ ...A_QUERY, k }))).toThrow(CodecError);
    }
    for (const w of [[['a', 'heavy']], [['a']], [['a', 1, 2]], [[1, 1]], [['a', null]], { a: 1 }]) {
      expect(() => decodeRequest(encode({ ...A_QUERY, profile: { w } }))).toThrow(CodecError);
    }
    // NaN and ±Infinity are refused by the CBOR decoder itself
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => decodeRequest(encode({ ...A_QUERY, profile: { w: [['a', x]] } }))).toThrow(
        /not valid CBOR/,
      );
      expect(() => decodeRequest(encode({ ...A_QUERY, k: x }))).toThrow(CodecError);
    }
  });
});

describe('wire profiles and profile JSON under hostile values', () => {
  it('profileFromWire: exactly the profiles the rules allow, else a FieldError (10,000 cases)', () => {
    const seen = tally();
    fc.assert(
      fc.property(hostileWireProfile, limitsArb, (w, limits) => {
        const p = attempt(() => profileFromWire(w, limits), FieldError);
        seen.note(p !== null);
        const valid = profileVerdict(w.w, w.r, limits);
        expect(p !== null).toBe(valid);
        if (p !== null) checkProfile(p, w.w, w.r);
      }),
      {
        numRuns: RUNS,
        examples: [
          [{ w: [['a', 1]], r: [] }, {}],
          [{ w: [['__proto__', 1]] }, {}],
          [
            {
              w: [
                ['a', 1],
                ['a', 1],
              ],
            },
            {},
          ],
          [
            {
              w: [
                ['a', 1],
                ['b', 1],
              ],
              r: [
                ['a', 'b', 1],
                ['b', 'a', 2],
              ],
            },
            {},
          ],
          [{ w: [['a', Number.NaN]] }, {}],
          [{ w: [['a', -0]] }, {}],
        ],
      },
    );
    seen.expectBoth();
  });

  // Any JSON value as a weight or a relation, objects with inherited-looking names, extra fields.
  const hostileWeights = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.dictionary(attrName, fc.oneof(weightValue, fc.jsonValue({ maxDepth: 2 })), {
        maxKeys: 6,
      }),
    },
    fc.jsonValue({ maxDepth: 2 }),
  );
  const hostileRelations = fc.oneof(
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.tuple(attrName, attrName, weightValue) },
        fc.array(fc.oneof(attrName, weightValue, fc.jsonValue({ maxDepth: 1 })), { maxLength: 4 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      { maxLength: 5 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  // Profiles built from the hostile wire profiles (relations mostly between their attributes).
  const fromWire = fc
    .tuple(hostileWireProfile, fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }))
    .map(([w, id]) => definedOnly({ weights: Object.fromEntries(w.w), relations: w.r, id }));
  const profileValue = fc.oneof(
    { weight: 6, arbitrary: fromWire },
    { weight: 2, arbitrary: withBadField(fromWire) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          weights: hostileWeights,
          relations: hostileRelations,
          id: fc.jsonValue({ maxDepth: 1 }),
          user: anyString,
        },
        { requiredKeys: [] },
      ),
    },
    fc.jsonValue({ maxDepth: 3 }),
    fc.anything({ maxDepth: 2 }),
  );
  const jsonText = (v: unknown): string | undefined =>
    JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x));
  // The same as JSON text, cut or garbled at random places.
  const profileText = fc.oneof(
    profileValue.map((v) => jsonText(v) ?? 'undefined'),
    fc.tuple(profileValue, fc.nat(), fc.nat(), anyString).map(([v, a, b, junk]) => {
      const t = jsonText(v) ?? '';
      const i = t.length === 0 ? 0 : a % t.length;
      return t.slice(0, i) + junk + t.slice(i + (t.length === 0 ? 0 : b % 4));
    }),
    anyString,
  );

  /** The rules, applied to a parsed JSON value. */
  function verdict(value: unknown, limits: ParseOptions): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const { weights, relations } = value as { weights?: unknown; relations?: unknown };
    if (typeof weights !== 'object' || weights === null || Array.isArray(weights)) return false;
    return profileVerdict(
      Object.keys(weights).map((k) => [k, (weights as Record<string, unknown>)[k]]),
      relations,
      limits,
    );
  }

  it('parseProfile: exactly the profiles the rules allow, else a ProfileError (10,000 cases)', () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.oneof(profileValue, profileText), limitsArb, (input, limits) => {
        const p = attempt(() => parseProfile(input, limits), ProfileError);
        seen.note(p !== null);
        let value: unknown = input;
        if (typeof input === 'string') {
          try {
            value = JSON.parse(input);
          } catch {
            expect(p).toBeNull();
            return;
          }
        }
        expect(p !== null).toBe(verdict(value, limits));
        if (p !== null) {
          const { weights, relations } = value as {
            weights: Record<string, unknown>;
            relations?: unknown;
          };
          checkProfile(p, Object.entries(weights), relations);
        }
      }),
      {
        numRuns: RUNS,
        examples: [
          ['{"weights":{"__proto__":1}}', {}],
          [
            {
              weights: { a: 1, b: 2 },
              relations: [
                ['a', 'b', 1],
                ['b', 'a', 1],
              ],
            },
            {},
          ],
          [{ weights: { a: Number.POSITIVE_INFINITY } }, {}],
          [{ weights: { a: 1 }, relations: null }, {}],
          ['{"weights":{"a":1e999}}', {}],
          [`{"weights":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`, {}],
        ],
      },
    );
    seen.expectBoth();
  });

  it('parseProfile refuses 10^5-deep nesting, as JSON text and as values', () => {
    let deep: unknown = 1;
    for (let i = 0; i < DEEP; i++) deep = [deep];
    let deepObject: unknown = 1;
    for (let i = 0; i < DEEP; i++) deepObject = { a: deepObject };
    const inputs = [
      { weights: deep },
      { weights: deepObject },
      { weights: { a: deep } },
      { weights: { a: 1 }, relations: deep },
      { weights: { a: 1, b: 1 }, relations: [['a', 'b', deep]] },
      `{"weights":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`,
      `{"weights":{"a":1},"relations":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`,
      `{"weights":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`,
      '['.repeat(10 * DEEP),
    ];
    for (const input of inputs) {
      expect(attempt(() => parseProfile(input), ProfileError)).toBeNull();
    }
  });
});

describe('signed records under hostile blobs', () => {
  let key: PrivateKey;
  let other: PrivateKey;
  let owner: Uint8Array;
  let nonce: Uint8Array;
  let id: string;
  let peer: string;

  beforeAll(async () => {
    key = await generateKeyPair('Ed25519');
    other = await generateKeyPair('secp256k1');
    owner = publicKeyToProtobuf(key.publicKey);
    nonce = new Uint8Array(NONCE_BYTES).fill(9);
    id = communityId(owner, nonce);
    peer = peerIdFromPrivateKey(key).toString();
  });

  async function signPayload(payload: Uint8Array, by: PrivateKey = key): Promise<SignedBlob> {
    const sig = await by.sign(Buffer.concat([SIGNING_DOMAIN, payload]));
    return { payload, owner: publicKeyToProtobuf(by.publicKey), sig };
  }

  const addr = (peerId: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.ipV4().map((ip) => `/ip4/${ip}/tcp/4001/p2p/${peerId}`) },
      fc.constantFrom(
        `/p2p/${peerId}`,
        `/ip6/::1/tcp/1/p2p/${peerId}`,
        `/dns4/example.org/tcp/1/p2p/${peerId}`,
        '/ip4/1.2.3.4/tcp/1',
        `/p2p/${peerId}/ip4/1.2.3.4`,
        `/ip4/1.2.3.4/tcp/1/p2p/${peerId}/`,
        `/ip4/1.2.3.4/tcp/99999/p2p/${peerId}`,
        `/ip4/1.2.3.4/tcp/1/p2p/${peerId.slice(0, -1)}`,
        `/unix/${'x'.repeat(600)}/p2p/${peerId}`,
        '',
        '/',
        '//',
      ),
      anyString.map((s) => `/${s}/p2p/${peerId}`),
      anyString,
    );

  /** Payload objects: right in shape, wrong in a field, or anything at all. */
  const payloadObject = (ctx: { id: string; nonce: Uint8Array; peer: string }) => {
    const head = {
      id: fc.oneof({ weight: 5, arbitrary: fc.constant(ctx.id) }, hex64, anyString),
      n: fc.oneof({ weight: 5, arbitrary: fc.constant(ctx.nonce) }, bytesOf(0, 20)),
      v: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) },
        hostileNumber,
      ),
    };
    const shaped = fc.oneof(
      hostileWireProfile.map((w) => ({ t: 'd', ...w })),
      fc
        .oneof(
          fc.array(addr(ctx.peer), { maxLength: 4 }),
          fc.array(addr(ctx.peer), { minLength: MAX_CONTACTS - 1, maxLength: MAX_CONTACTS + 2 }),
        )
        .map((a) => ({ t: 'c', a })),
      bytesOf(0, 70).map((k) => ({ t: 'r', k })),
      fc.constant({ t: 'x' }),
    );
    const full = fc
      .tuple(fc.record(head, { noNullPrototype: true }), shaped)
      .map(([h, s]) => ({ ...h, ...s }));
    return fc.oneof({ weight: 4, arbitrary: full }, withBadField(full), cborValue);
  };

  it('openRecord: a valid record or a RecordError, for 10,000 hostile payloads signed by their owner', async () => {
    const payloads = fc.oneof(
      { weight: 6, arbitrary: payloadObject({ id, nonce, peer }).map(cbor) },
      mutated(payloadObject({ id, nonce, peer }).map(cbor)),
      fc.uint8Array({ maxLength: 200 }),
    );
    const seen = tally();
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(payloads, limitsArb, fc.boolean(), async (payload, limits, verified) => {
        const blob = await signPayload(payload);
        const r = await attemptAsync(() => openRecord(blob, limits, { verified }), RecordError);
        seen.note(r !== null);
        if (r !== null) {
          kinds.add(r.kind);
          checkRecord(r, blob, limits);
        }
      }),
      {
        numRuns: RUNS,
        examples: [
          [
            encode({
              t: 'd',
              id,
              n: nonce,
              v: 1,
              w: [
                ['a', 1],
                ['a', 2],
              ],
            }),
            {},
            false,
          ],
          [encode({ t: 'd', id, n: nonce, v: 1, w: [['__proto__', 1]], r: [] }), {}, false],
          [encode({ t: 'c', id, n: nonce, v: 1, a: ['/ip4/1.2.3.4/tcp/1'] }), {}, true],
          [encode({ t: 'x', id, n: nonce, v: { toString: 0 } }), {}, true],
        ],
      },
    );
    seen.expectBoth();
    expect([...kinds].sort()).toEqual(['contacts', 'descriptor', 'removal', 'tombstone']);
  });

  it('openRecord: a RecordError for 10,000 valid records with a changed payload, owner or signature', async () => {
    const contents = await Promise.all(
      [1, 2, 3].map(async (v) => [
        await signRecord(key, {
          kind: 'descriptor',
          id,
          nonce,
          version: v,
          profile: parseProfile({ weights: { a: 1, b: 2 }, relations: [['a', 'b', 0.5]] }),
        }),
        await signRecord(key, {
          kind: 'contacts',
          id,
          nonce,
          version: v,
          addrs: [`/ip4/1.2.3.4/tcp/1/p2p/${peer}`],
        }),
        await signRecord(key, { kind: 'removal', id, nonce, version: v, key: new Uint8Array([v]) }),
        await signRecord(key, { kind: 'tombstone', id, nonce, version: v }),
      ]),
    );
    const blobs = contents.flat();
    const otherOwner = publicKeyToProtobuf(other.publicKey);
    const part = fc.constantFrom('payload', 'owner', 'sig');
    const changed = fc
      .tuple(
        fc.constantFrom(...blobs),
        fc.oneof(
          fc.tuple(part, fc.array(edit, { minLength: 1, maxLength: 3 })),
          fc.tuple(part, fc.uint8Array({ maxLength: 120 })),
          fc.tuple(part, fc.constantFrom(...blobs)),
          fc.tuple(fc.constant('owner'), fc.constant(otherOwner)),
        ),
      )
      .map(([blob, [which, how]]) => {
        const b = { ...blob };
        b[which] =
          how instanceof Uint8Array
            ? how
            : Array.isArray(how)
              ? applyEdits(blob[which as 'payload'], how)
              : how[which as 'payload'];
        return b;
      });
    await fc.assert(
      fc.asyncProperty(changed, async (blob) => {
        const r = await attemptAsync(() => openRecord(blob), RecordError);
        if (r !== null) {
          // only a change that changed nothing (the same bytes as a signed blob) may open
          const same = (x: Uint8Array, y: Uint8Array) => Buffer.from(x).equals(y);
          expect(
            blobs.some(
              (b) =>
                same(b.payload, blob.payload) && same(b.owner, blob.owner) && same(b.sig, blob.sig),
            ),
          ).toBe(true);
          checkRecord(r, blob, {});
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('openRecord(signRecord(x)) gives x back, for 10,000 valid records', async () => {
    const name = fc.oneof(
      fc.constantFrom('a', 'b', 'c', 'd', 'e', '0', '1', '__proto__', 'toString'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
    );
    const profile = fc
      .tuple(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: Number.MIN_VALUE, max: 1e300, noNaN: true }), {
          minLength: 6,
          maxLength: 6,
        }),
        fc.option(fc.array(fc.tuple(fc.nat(), fc.nat(), finite.map(Math.abs)), { maxLength: 6 })),
      )
      .map(([names, ws, rels]) => {
        const weights = Object.fromEntries(names.map((n, i) => [n, ws[i] as number]));
        if (rels === null) return parseProfile({ weights });
        const seen = new Set<string>();
        const relations: [string, string, number][] = [];
        for (const [i, j, r] of rels) {
          const a = names[i % names.length] as string;
          const b = names[j % names.length] as string;
          const pair = JSON.stringify([a, b].sort());
          if (a === b || seen.has(pair)) continue;
          seen.add(pair);
          relations.push([a, b, r]);
        }
        return parseProfile({ weights, relations });
      });
    const head = {
      id: fc.constant(id),
      nonce: fc.constant(nonce),
      version: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    };
    const content: fc.Arbitrary<RecordContent> = fc.oneof(
      fc.record({ kind: fc.constant('descriptor' as const), ...head, profile }),
      fc.record({
        kind: fc.constant('contacts' as const),
        ...head,
        addrs: fc.array(
          fc.ipV4().map((ip) => `/ip4/${ip}/tcp/4001/p2p/${peer}`),
          { maxLength: MAX_CONTACTS },
        ),
      }),
      fc.record({ kind: fc.constant('removal' as const), ...head, key: bytesOf(1, 64) }),
      fc.record({ kind: fc.constant('tombstone' as const), ...head }),
    );
    await fc.assert(
      fc.asyncProperty(content, async (c) => {
        const blob = await signRecord(key, c);
        const r = await openRecord(blob);
        expect(r.kind).toBe(c.kind);
        expect([r.id, r.version, [...r.nonce]]).toEqual([c.id, c.version, [...c.nonce]]);
        checkRecord(r, blob, {});
        if (r.kind === 'descriptor' && c.kind === 'descriptor') {
          checkProfile(
            r.profile,
            [...c.profile.weights],
            c.profile.isMatrix ? c.profile.relations : undefined,
          );
        }
        if (r.kind === 'contacts' && c.kind === 'contacts') expect(r.addrs).toEqual(c.addrs);
        if (r.kind === 'removal' && c.kind === 'removal') expect([...r.key]).toEqual([...c.key]);
      }),
      { numRuns: RUNS },
    );
  });

  it('openRecord refuses 10^5-deep nesting in a signed payload', async () => {
    const base = { t: 'd', id, n: nonce, v: 1, w: [['a', 1]] };
    for (const deep of [deepArrays(DEEP), deepMaps(DEEP)]) {
      for (const payload of [deep, embed(base, 'w', deep), embed(base, 'v', deep)]) {
        const blob = await signPayload(payload);
        expect(await attemptAsync(() => openRecord(blob), RecordError)).toBeNull();
      }
    }
  });
});

describe('a profile of a million attributes', () => {
  const MILLION = 1_000_000;
  let w: [string, number][] = [];
  beforeAll(() => {
    w = Array.from({ length: MILLION }, (_, i) => [`a${i}`, 1]);
  });
  const refused = /holds 1000000 attributes, more than 4096/;

  function thrownBy(fn: () => unknown): unknown {
    try {
      fn();
    } catch (err) {
      return err;
    }
    return undefined;
  }

  /** `target` behind a proxy that counts reads of its entries (a list's length is not one). */
  function counted<T extends object>(target: T): { value: T; reads: () => number } {
    let reads = 0;
    const value = new Proxy(target, {
      get(t, prop, receiver) {
        if (prop !== 'length' && typeof prop === 'string') reads++;
        return Reflect.get(t, prop, receiver);
      },
    });
    return { value, reads: () => reads };
  }

  it('profileFromWire refuses it from the count alone, reading no attribute', () => {
    const attrs = counted(w);
    const thrown = thrownBy(() => profileFromWire({ w: attrs.value }));
    expect(checkThrown(thrown, FieldError).message).toMatch(refused);
    expect(attrs.reads()).toBe(0);
    const rels = counted(
      Array.from({ length: 200_000 }, (): [string, string, number] => ['a', 'b', 1]),
    );
    const rel = thrownBy(() => profileFromWire({ w: [['a', 1]], r: rels.value }));
    expect(checkThrown(rel, FieldError).message).toMatch(/holds 200000 relations/);
    expect(rels.reads()).toBe(0);
  });

  it('parseProfile refuses it after counting the keys (no attribute is read)', () => {
    const weights = counted(Object.fromEntries(w));
    const thrown = thrownBy(() => parseProfile({ weights: weights.value }));
    expect(checkThrown(thrown, ProfileError).message).toMatch(refused);
    expect(weights.reads()).toBe(0);
  });

  it('openRecord refuses it signed by its owner, before validating every entry', async () => {
    const key = await generateKeyPair('Ed25519');
    const owner = publicKeyToProtobuf(key.publicKey);
    const nonce = new Uint8Array(NONCE_BYTES);
    // The last entry is malformed: validated first, it would be the error; counted first, the
    // count is.
    const entries = [...w.slice(0, -1), ['last', 'heavy']];
    const payload = encode({ t: 'd', id: communityId(owner, nonce), n: nonce, v: 1, w: entries });
    const sig = await key.sign(Buffer.concat([SIGNING_DOMAIN, payload]));
    let thrown: unknown;
    try {
      await openRecord({ payload, owner, sig });
    } catch (err) {
      thrown = err;
    }
    expect(checkThrown(thrown, RecordError).message).toMatch(refused);
  });

  it('decodeRequest takes it (the codec knows no limits; the frame limit bounds it)', () => {
    const frame = encodeMessage({
      v: 1,
      swarm: SWARM,
      t: 'query',
      key: SWARM,
      profile: { w },
      k: 5,
    });
    const req = decodeRequest(frame);
    expect(req.t === 'query' && req.profile.w.length).toBe(MILLION);
    // …and the query handler's profileFromWire refuses it from the count alone
    if (req.t !== 'query') throw new Error('not a query');
    const attrs = counted(req.profile.w);
    const thrown = thrownBy(() => profileFromWire({ w: attrs.value }, { maxAttributes: 4096 }));
    expect(checkThrown(thrown, FieldError).message).toMatch(refused);
    expect(attrs.reads()).toBe(0);
  });
});
