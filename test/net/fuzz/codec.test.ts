/**
 * Hostile frames for the wire codec, `decodeRequest` and `decodeResponse` (fast-check, `RUNS`
 * cases a property): random bytes; valid frames with bytes flipped, cut, inserted or repeated;
 * messages with a field wrongly typed, missing or extra; out-of-range k; wrong wire versions;
 * nesting 10^5 deep.
 *
 * Property: a decoder returns a value its schema accepts, or throws a CodecError with a message;
 * never a TypeError, a RangeError or a stack overflow. Valid frames round-trip.
 *
 * Found and fixed (the regression is kept as an example): a message whose `v` is a map such as
 * {toString: 0} made decodeRequest / decodeResponse throw a TypeError (String() of it, for the
 * wrong-version message).
 */
import { deflateRawSync } from 'node:zlib';
import { encode } from 'cborg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  decodeRequest,
  decodeResponse,
  ERROR_CODES,
  encodeMessage,
  encodeRequest,
  MAX_K,
  type Request,
  type Response,
  requestSchema,
  responseSchema,
} from '../../../src/net/codec.ts';
import type { WireProfile } from '../../../src/net/wire-profile.ts';
import { attempt, cases, checkThrown, RUNS, tally } from './check.ts';
import { hostileWireProfile } from './profiles.ts';
import {
  anyString,
  asciiUpTo,
  bytesOf,
  cbor,
  cborValue,
  DEEP,
  deepArrays,
  deepMaps,
  embed,
  finite,
  hex64,
  hostileNumber,
  mutated,
  SWARM,
  wellFormed,
  withBadField,
} from './values.ts';

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
  rec({ ...reqBase, t: fc.constant('contacts-get'), id: hex64, brief: fc.constant(true) }, [
    'v',
    'swarm',
    't',
    'id',
  ]),
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
      recV: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      descV: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
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

/** A query of `r`'s fields without its profile, for a `pz` in its place. */
function bare(r: object): Record<string, unknown> {
  const { profile: _, ...rest } = r as Record<string, unknown>;
  return { ...rest, t: 'query', key: new Uint8Array([1]), k: 5 };
}

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
    // Deflated profiles: hostile ones, bytes that are not DEFLATE, and damaged valid ones.
    fc
      .tuple(validRequest, hostileWireProfile)
      .map(([r, profile]) => cbor({ ...bare(r), pz: deflateRawSync(cbor(profile)) })),
    fc
      .tuple(validRequest, fc.uint8Array({ maxLength: 300 }))
      .map(([r, pz]) => cbor({ ...bare(r), pz })),
    mutated(validRequest.map((r) => encodeRequest(r, true))),
    cborValue.map(cbor),
  );

  it(`decodeRequest: a schema-valid request or a CodecError, for ${cases(RUNS)} hostile frames`, () => {
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

  it(`decodeResponse: a schema-valid response or a CodecError, for ${cases(RUNS)} hostile frames`, () => {
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

  it(`round-trips ${cases(RUNS)} valid requests and ${cases(RUNS)} valid responses`, () => {
    fc.assert(
      fc.property(validRequest, (r) => {
        expect(decodeRequest(encodeMessage(r))).toEqual(zeroes(r));
        expect(decodeRequest(encodeRequest(r, true))).toEqual(zeroes(r));
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
