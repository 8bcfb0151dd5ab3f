import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  attributeKey,
  bandKey,
  estimateJaccard,
  FAMILIES,
  indexKeys,
  lshIdentifiers,
  lshSignature,
  ParamsError,
  parseProfile,
} from '../../src/index.ts';
import { hex } from '../../src/util/bytes.ts';
import { setProfile } from '../fixtures.ts';

const ATTRS = Array.from({ length: 150 }, (_, i) => `term-${i}`);
const big = setProfile(ATTRS);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('attribute mode', () => {
  it('gives one 32-byte key per attribute, the same for an attribute in any profile', () => {
    const a = parseProfile({ weights: { x: 1, y: 2 } });
    const b = parseProfile({ weights: { y: 9, z: 1 } });
    const ka = indexKeys(a, { mode: 'attribute' });
    const kb = indexKeys(b, { mode: 'attribute' });
    expect(ka).toHaveLength(2);
    expect(ka.every((k) => k.length === 32)).toBe(true);
    expect(hex(ka[1] as Uint8Array)).toBe(hex(kb[0] as Uint8Array));
    expect(hex(ka[0] as Uint8Array)).not.toBe(hex(ka[1] as Uint8Array));
    expect(hex(ka[0] as Uint8Array)).toBe(hex(attributeKey('x')));
  });
});

describe.each(FAMILIES)('LSH mode, family %s', (family) => {
  const params = { mode: 'lsh' as const, n: 20, m: 2, seed: 'swarm-1', family };

  it('gives n distinct 32-byte keys, the same on every call', () => {
    const k1 = indexKeys(big, params).map(hex);
    expect(k1).toHaveLength(20);
    expect(new Set(k1).size).toBe(20);
    expect(indexKeys(setProfile([...ATTRS].reverse()), params).map(hex)).toEqual(k1);
  });

  it('depends on the attribute set only, not on weights, relations or order', () => {
    const weighted = parseProfile({
      weights: Object.fromEntries(ATTRS.map((a, i) => [a, 1 + i])),
      relations: [[ATTRS[0], ATTRS[1], 0.7]],
    });
    expect(indexKeys(weighted, params).map(hex)).toEqual(indexKeys(big, params).map(hex));
  });

  it('changes completely with the seed, n, m or family (keys carry the parameters digest)', () => {
    const base = new Set(indexKeys(big, params).map(hex));
    const others = [
      { ...params, seed: 'swarm-2' },
      { ...params, n: 21 },
      { ...params, m: 3 },
      { ...params, family: family === 'oph' ? 'thesis' : 'oph' },
    ];
    for (const o of others) {
      expect(indexKeys(big, o).filter((k) => base.has(hex(k)))).toEqual([]);
    }
  });

  it('gives identifiers below 2^bits for every width', () => {
    for (const bits of [8, 16, 32, 64]) {
      const ids = lshIdentifiers(big, { n: 10, m: 2, seed: 's', family, bits });
      expect(ids).toHaveLength(10);
      for (const id of ids) {
        expect(id >= 0n && id < 2n ** BigInt(bits)).toBe(true);
      }
    }
  });

  it('estimates Jaccard from signatures: 1 for equal sets, about 0 for disjoint ones', () => {
    const p = { n: 20, m: 5, seed: 's', family };
    expect(estimateJaccard(lshSignature(big, p), lshSignature(big, p))).toBe(1);
    const other = setProfile(ATTRS.map((a) => `${a}-other`));
    expect(estimateJaccard(lshSignature(big, p), lshSignature(other, p))).toBeLessThan(0.05);
  });

  it('never calls Math.random', () => {
    const spy = vi.spyOn(Math, 'random');
    indexKeys(big, { ...params, seed: `fresh-${family}-${Date.now()}` });
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('determinism across machines and runs', () => {
  // Pinned outputs: if one changes, every existing swarm's keys change with it.
  it.each([
    ['oph', 'e6d13aeab139c0d0'],
    ['tabulation', '30fb9ccf48087f42'],
    ['thesis', '1662faccb890d808'],
  ])('family %s gives the pinned first identifier', (family, expected) => {
    const [first] = lshIdentifiers(setProfile(['canto', 'Verdi', 'Rigoletto', 'chitarra']), {
      n: 3,
      m: 2,
      seed: 'pinned',
      family,
    });
    expect((first as bigint).toString(16).padStart(16, '0')).toBe(expected);
  });

  it('pins the attribute key derivation', () => {
    expect(hex(attributeKey('Verdi'))).toBe(PINNED_ATTRIBUTE_KEY);
  });
});

describe('re-hashing (thesis §5.4.3)', () => {
  it('spreads keys uniformly although raw min-hash identifiers crowd the low end', () => {
    const profiles = Array.from({ length: 300 }, (_, i) =>
      setProfile(ATTRS.map((a) => `${a}/${i}`)),
    );
    const params = { n: 5, m: 1, seed: 'load', family: 'thesis' };
    let rawSum = 0;
    let keySum = 0;
    let count = 0;
    for (const p of profiles) {
      for (const id of lshIdentifiers(p, params)) rawSum += Number(id) / 2 ** 64;
      for (const k of indexKeys(p, { mode: 'lsh', ...params })) {
        keySum += Buffer.from(k).readUInt32BE(0) / 2 ** 32;
        count++;
      }
    }
    // The minimum of 150 uniform values averages 1/151 of the range.
    expect(rawSum / count).toBeLessThan(0.02);
    expect(keySum / count).toBeGreaterThan(0.45);
    expect(keySum / count).toBeLessThan(0.55);
  });

  it('keeps equal identifiers of different bands apart', () => {
    const d = new Uint8Array(32);
    expect(hex(bandKey(d, 0, 1, 2))).not.toBe(hex(bandKey(d, 1, 1, 2)));
    expect(hex(bandKey(d, 0, 1, 2))).toBe(hex(bandKey(new Uint8Array(32), 0, 1, 2)));
  });
});

describe('parameter validation', () => {
  it.each([
    [{ mode: 'lsh', n: 0, m: 1, seed: 's' }, 'n: must be an integer in [1, 1024]'],
    [{ mode: 'lsh', n: 2, m: 1.5, seed: 's' }, 'm: must be an integer in [1, 64]'],
    [{ mode: 'lsh', n: 2, m: 1, seed: '' }, 'seed: must be a non-empty string'],
    [{ mode: 'lsh', n: 2, m: 1, seed: 's', family: 'md5' }, 'family: unknown family "md5"'],
    [{ mode: 'lsh', n: 2, m: 1, seed: 's', bits: 12 }, 'bits: must be 8, 16, 32 or 64'],
    [{ mode: 'exact' }, 'mode: must be "attribute" or "lsh"'],
  ])('rejects %j', (params, message) => {
    expect(() => indexKeys(big, params as never)).toThrow(ParamsError);
    expect(() => indexKeys(big, params as never)).toThrow(message);
  });

  it('accepts any valid parameters (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.isWellFormed()),
        fc.constantFrom(...FAMILIES),
        (n, m, seed, family) => {
          expect(indexKeys(big, { mode: 'lsh', n, m, seed, family })).toHaveLength(n);
        },
      ),
      { numRuns: 40 },
    );
  });
});

const PINNED_ATTRIBUTE_KEY = '561863ee55feedc96aa9e8db82865023e6a12c67bc0cf24fb3bcc6a18ea566ff';
