import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeHash, lshIdentifiers, parseProfile } from '../../src/index.ts';
import { applyTables, FUNCTION_WORDS } from '../../src/keys/byte-tables.ts';
import { lshParamsDigest, resolveLshParams } from '../../src/keys/params.ts';
import { SeededStream } from '../../src/keys/random.ts';
import {
  compileScheme,
  generateSchemes,
  keyPositions,
  writePermutationTables,
} from '../../src/keys/thesis.ts';
import {
  applyKey,
  applyPermutation,
  computeIdentifiers,
  fromBits,
  toBits,
} from '../reference/thesis-reference.ts';

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

describe('algorithm 4.1: scheme generation', () => {
  it('makes n×m schemes of keys of b, b/2, …, 2 bits, each exactly half set', () => {
    const schemes = generateSchemes(3, 2, 64, new SeededStream('test', 'gen'));
    expect(schemes).toHaveLength(3);
    for (const set of schemes) {
      expect(set).toHaveLength(2);
      for (const scheme of set) {
        expect(scheme.map((k) => k.length)).toEqual([64, 32, 16, 8, 4, 2]);
        for (const key of scheme) expect(key.reduce((s, x) => s + x, 0)).toBe(key.length / 2);
      }
    }
  });

  it('is a function of the seed alone', () => {
    const a = generateSchemes(2, 2, 32, new SeededStream('test', 'same'));
    const b = generateSchemes(2, 2, 32, new SeededStream('test', 'same'));
    const c = generateSchemes(2, 2, 32, new SeededStream('test', 'other'));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});

describe('algorithm 4.4 with the printed slip fixed', () => {
  it('is a permutation of positions for every key size', () => {
    const rng = new SeededStream('test', 'perm');
    for (const scheme of generateSchemes(4, 1, 64, rng).flat()) {
      for (const key of scheme) {
        const dest = [...keyPositions(key, 64)].sort((x, y) => x - y);
        expect(dest).toEqual([...Array(64).keys()]);
      }
    }
  });

  it('packs 1-bits first and 0-bits into the second half (fig 4.10 style, 8 bits)', () => {
    const key = Uint8Array.from([1, 0, 0, 1, 1, 0, 1, 0]);
    // Positions 0, 3, 4, 6 go to 0..3 in order; 1, 2, 5, 7 to 4..7.
    expect([...keyPositions(key, 8)]).toEqual([0, 4, 5, 1, 2, 6, 3, 7]);
    expect(applyKey([1, 1, 0, 0, 1, 0, 1, 1], key, 8, 8)).toEqual([1, 0, 1, 1, 1, 0, 0, 1]);
  });
});

describe('compiled scheme = bit-by-bit reference', () => {
  it.each([8, 16, 32, 64])('equals algorithms 4.3/4.4 on random %i-bit values', (b) => {
    const schemes = generateSchemes(6, 1, b, new SeededStream('test', `cmp-${b}`)).flat();
    const t = new Uint32Array(schemes.length * FUNCTION_WORDS);
    schemes.forEach((s, f) => {
      writePermutationTables(compileScheme(s, b), b, t, f);
    });
    fc.assert(
      fc.property(u64, fc.integer({ min: 0, max: schemes.length - 1 }), (x, f) => {
        const v = x & ((1n << BigInt(b)) - 1n);
        const w = new Uint32Array(2);
        applyTables(t, f, Number(x >> 32n), Number(x & 0xffffffffn), w);
        const [hi, lo] = w as unknown as [number, number];
        const compiled = (BigInt(hi) << 32n) | BigInt(lo);
        expect(compiled).toBe(applyPermutation(v, schemes[f] as Uint8Array[], b));
      }),
      { numRuns: 2000 },
    );
  });

  it('bit arrays round-trip', () => {
    fc.assert(
      fc.property(u64, (x) => {
        expect(fromBits(toBits(x, 64))).toBe(x);
      }),
    );
  });

  it('gives the identifiers of algorithm 4.2 for random profiles, for b = 64 and b = 16', () => {
    for (const bits of [64, 16]) {
      const params = resolveLshParams({ n: 4, m: 3, seed: `ref-${bits}`, family: 'thesis', bits });
      const hex = Buffer.from(lshParamsDigest(params)).toString('hex');
      const schemes = generateSchemes(4, 3, bits, new SeededStream('cidx/lsh/thesis', hex));
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), {
            minLength: 1,
            maxLength: 25,
          }),
          (attrs) => {
            const p = parseProfile({ weights: Object.fromEntries(attrs.map((a) => [a, 1])) });
            const mask = (1n << BigInt(bits)) - 1n;
            const hashed = attrs.map((a) => attributeHash(a) & mask);
            expect(lshIdentifiers(p, params)).toEqual(computeIdentifiers(hashed, schemes, bits));
          },
        ),
        { numRuns: 40 },
      );
    }
  });
});
