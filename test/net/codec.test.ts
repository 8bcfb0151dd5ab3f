import { encode } from 'cborg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  decodeRequest,
  decodeResponse,
  encodeMessage,
  fitToFrame,
  type Request,
} from '../../src/net/codec.ts';
import { profileFromWire, profileToWire } from '../../src/net/wire-profile.ts';
import { parseProfile } from '../../src/profile/parse.ts';

const swarm = new Uint8Array(32).fill(7);
const rec = { p: new Uint8Array([1, 2]), o: new Uint8Array([3]), s: new Uint8Array([4]) };
const id = 'a'.repeat(64);

const REQUESTS: Request[] = [
  { v: 1, swarm, t: 'query', key: new Uint8Array([1]), profile: { w: [['a', 1]], r: [] }, k: 5 },
  { v: 1, swarm, t: 'store', key: new Uint8Array([1]), rec, s: 3 },
  { v: 1, swarm, t: 'update', key: new Uint8Array([1]), rec, s: 0 },
  { v: 1, swarm, t: 'remove', rec },
  { v: 1, swarm, t: 'contacts-put', rec, desc: rec },
  { v: 1, swarm, t: 'contacts-get', id },
  { v: 1, swarm, t: 'contacts-get', id, brief: true },
  { v: 1, swarm, t: 'notify', kind: 'created', rec, sim: 0.5, for: id },
  { v: 1, swarm, t: 'params' },
  { v: 1, swarm, t: 'route', hops: 3, req: { v: 1, swarm, t: 'contacts-get', id } },
];

describe('wire codec', () => {
  it.each(REQUESTS.map((r) => [r.t, r] as const))('round-trips a %s request', (_t, req) => {
    expect(decodeRequest(encodeMessage(req))).toEqual(req);
  });

  it('round-trips responses, ok and error', () => {
    const ok = { v: 1 as const, ok: true as const, outcome: 'stored', recs: [rec] };
    expect(decodeResponse(encodeMessage(ok))).toEqual(ok);
    const versions = { v: 1 as const, ok: true as const, recV: 2, descV: 2, tomb: rec };
    expect(decodeResponse(encodeMessage(versions))).toEqual(versions);
    expect(() => decodeResponse(encodeMessage({ ...versions, recV: 0 }))).toThrow(CodecError);
    const err = {
      v: 1 as const,
      ok: false as const,
      code: 'swarm-mismatch' as const,
      msg: 'x',
      params: { k: 5 },
    };
    expect(decodeResponse(encodeMessage(err))).toEqual(err);
  });

  it.each([
    [{ v: 2, swarm, t: 'params' }, 'wire version 2'],
    [{ v: 1, swarm, t: 'teleport' }, 'request'],
    [{ v: 1, swarm: new Uint8Array(3), t: 'params' }, 'must be 32 bytes'],
    [
      { v: 1, swarm, t: 'query', key: new Uint8Array([1]), profile: { w: [['a', 'heavy']] }, k: 5 },
      'request',
    ],
    [
      { v: 1, swarm, t: 'query', key: new Uint8Array([1]), profile: { w: [] }, k: 100000 },
      'request',
    ],
    [{ v: 1, swarm, t: 'contacts-get', id: '../../etc' }, 'request'],
    // A route carries reads only, and is handed on a bounded number of times.
    [{ v: 1, swarm, t: 'route', hops: 1, req: { v: 1, swarm, t: 'remove', rec } }, 'request'],
    [{ v: 1, swarm, t: 'route', hops: 9, req: { v: 1, swarm, t: 'contacts-get', id } }, 'request'],
    [{ v: 1, swarm, t: 'route', hops: 1, req: { v: 1, swarm, t: 'route', hops: 1 } }, 'request'],
  ])('refuses %j', (msg, why) => {
    expect(() => decodeRequest(encode(msg))).toThrow(CodecError);
    expect(() => decodeRequest(encode(msg))).toThrow(why);
  });

  it('refuses CBOR a message never holds: NaN, undefined, indefinite lengths, duplicate keys', () => {
    expect(() => decodeRequest(Uint8Array.from([0xf9, 0x7e, 0x00]))).toThrow(CodecError); // NaN
    expect(() => decodeRequest(Uint8Array.from([0xf7]))).toThrow(CodecError); // undefined
    expect(() => decodeRequest(Uint8Array.from([0x9f, 0xff]))).toThrow(CodecError); // indefinite array
    expect(() =>
      decodeRequest(Uint8Array.from([0xa2, 0x61, 0x76, 0x01, 0x61, 0x76, 0x01])),
    ).toThrow(CodecError);
  });

  it('turns any garbage into a CodecError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeRequest(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps responses inside the frame budget', () => {
    const big = { p: new Uint8Array(1000), o: new Uint8Array(36), s: new Uint8Array(64) };
    expect(fitToFrame([big, big, big], 2500)).toHaveLength(2);
    expect(fitToFrame([big], 100)).toHaveLength(0);
  });
});

describe('query profiles in single precision', () => {
  it('weights a sender rounded to single precision still decode, as sent', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.double({ min: 1e-6, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        (names, ws) => {
          const p = parseProfile({ weights: Object.fromEntries(names.map((n, i) => [n, ws[i]])) });
          const full = profileToWire(p);
          // CBOR sends each number in its shortest exact form: these go as 4-byte floats.
          const single = { w: full.w.map(([a, x]) => [a, Math.fround(x)] as [string, number]) };
          const bytes = encodeMessage({
            v: 1,
            swarm,
            t: 'query',
            key: new Uint8Array([1]),
            profile: single,
            k: 5,
          });
          expect(bytes.length).toBeLessThanOrEqual(
            encodeMessage({
              v: 1,
              swarm,
              t: 'query',
              key: new Uint8Array([1]),
              profile: full,
              k: 5,
            }).length,
          );
          const req = decodeRequest(bytes);
          if (req.t !== 'query') throw new Error('not a query');
          const got = profileFromWire(req.profile);
          expect(got.size).toBe(p.size);
          for (const [a, x] of single.w) expect(got.weights.get(a)).toBe(x);
        },
      ),
    );
  });

  it('a query profile carries full double-precision weights', () => {
    const p = parseProfile({ weights: { a: 0.1, b: 0.3, c: 0.5 } });
    expect(profileToWire(p).w).toEqual([
      ['a', 0.1],
      ['b', 0.3],
      ['c', 0.5],
    ]);
    // 0.1 and 0.3 need 9 bytes each in double precision; 0.5 fits in 3.
    expect(
      encode(profileToWire(p)).length -
        encode({
          w: [
            ['a', 0],
            ['b', 0],
            ['c', 0],
          ],
        }).length,
    ).toBe(8 + 8 + 2);
  });
});
