import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  jaccard,
  type Profile,
  parseProfile,
  similarity,
  similarityMatrix,
  similarityVector,
} from '../../src/index.ts';
import { matrixArb, profileArb, vectorArb } from '../arbitraries.ts';
import { FIG_4_6_P1, FIG_4_6_P2, FIG_4_7_P1, FIG_4_7_P2 } from '../fixtures.ts';

const maxWeight = (p: Profile) => Math.max(...p.weights.values());
const maxRel = (p: Profile) => Math.max(0, ...p.relations.map((r) => r[2]));
const meanWeight = (p: Profile) => [...p.weights.values()].reduce((s, w) => s + w, 0) / p.size;

describe('metric 4.1 (weighted vectors)', () => {
  it('gives the thesis worked example, fig 4.6: 0.3575', () => {
    const p1 = parseProfile(FIG_4_6_P1);
    const p2 = parseProfile(FIG_4_6_P2);
    expect(similarity(p1, p2)).toBe(0.3575);
    expect(similarity(p2, p1)).toBe(0.3575);
  });

  it('is symmetric, bounded, and at most either profile compared with itself', () => {
    fc.assert(
      fc.property(vectorArb, vectorArb, (a, b) => {
        const s = similarityVector(a, b);
        expect(s).toBe(similarityVector(b, a));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(Math.min(maxWeight(a), maxWeight(b)) * (1 + 1e-11));
        expect(s).toBeLessThanOrEqual(
          Math.min(similarityVector(a, a), similarityVector(b, b)) * (1 + 1e-11),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('of a profile with itself is its mean weight; of disjoint profiles is 0', () => {
    fc.assert(
      fc.property(vectorArb, (a) => {
        expect(similarityVector(a, a)).toBeCloseTo(meanWeight(a), 10);
        const renamed = parseProfile({
          weights: Object.fromEntries([...a.weights].map(([k, w]) => [`other-${k}`, w])),
        });
        expect(similarity(a, renamed)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('divides by the larger profile, so a small profile inside a large one scores low', () => {
    const small = parseProfile({ weights: { a: 1 } });
    const large = parseProfile({ weights: { a: 1, b: 1, c: 1, d: 1 } });
    expect(similarity(small, large)).toBe(0.25);
  });
});

describe('metric 4.2 (adjacency matrices)', () => {
  it('gives the thesis worked example, fig 4.7: 0.53625', () => {
    const p1 = parseProfile(FIG_4_7_P1);
    const p2 = parseProfile(FIG_4_7_P2);
    expect(similarity(p1, p2)).toBe(0.53625);
    expect(similarity(p2, p1)).toBe(0.53625);
  });

  it('averages rowSim over related common attributes only (formula 4.2, not printed alg 4.21)', () => {
    // Common attributes a, b, c; a is related to b only. The printed algorithm would average
    // over {b, c} (0.4 / 2); the formula averages over related ones, {b} (0.4 / 1).
    const p1 = parseProfile({ weights: { a: 1, b: 1, c: 1 }, relations: [['a', 'b', 0.4]] });
    const p2 = parseProfile({ weights: { a: 1, b: 1, c: 1 }, relations: [['a', 'b', 0.8]] });
    // a: 1 + 1·0.4; b: 1 + 1·0.4; c: no related common attribute → 1. Sum 3.8, / 3.
    expect(similarityMatrix(p1, p2)).toBeCloseTo(3.8 / 3, 10);
    // A relation held by one profile only counts in the denominator with min(rel, 0) = 0.
    const p3 = parseProfile({ weights: { a: 1, b: 1, c: 1 }, relations: [['a', 'c', 0.9]] });
    // a: related (in either) to b and c → (min(.4,0) + min(0,.9)) / 2 = 0; b: to a → 0; c: to a → 0.
    expect(similarityMatrix(p1, p3)).toBe(1);
  });

  it('is symmetric, non-negative and bounded by maxWeight·(1 + maxRel)', () => {
    fc.assert(
      fc.property(matrixArb, matrixArb, (a, b) => {
        const s = similarityMatrix(a, b);
        expect(s).toBe(similarityMatrix(b, a));
        expect(s).toBeGreaterThanOrEqual(0);
        const bound = Math.min(maxWeight(a), maxWeight(b)) * (1 + Math.min(maxRel(a), maxRel(b)));
        expect(s).toBeLessThanOrEqual(bound * (1 + 1e-11));
      }),
      { numRuns: 500 },
    );
  });

  it('equals metric 4.1 when no common attributes are related, and is 0 when disjoint', () => {
    fc.assert(
      fc.property(matrixArb, (a) => {
        const plain = parseProfile({ ...a.toJSON(), relations: [] });
        expect(similarityMatrix(a, plain)).toBe(similarityVector(a, plain));
        const renamed = parseProfile({
          weights: Object.fromEntries([...a.weights].map(([k, w]) => [`x-${k}`, w])),
          relations: [],
        });
        expect(similarityMatrix(a, renamed)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('is used only when both profiles are matrices', () => {
    fc.assert(
      fc.property(profileArb, profileArb, (a, b) => {
        const expected = a.isMatrix && b.isMatrix ? similarityMatrix(a, b) : similarityVector(a, b);
        expect(similarity(a, b)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('jaccard', () => {
  it('is |A∩B| / |A∪B| over attribute sets, ignoring weights', () => {
    const p1 = parseProfile(FIG_4_6_P1);
    const p2 = parseProfile(FIG_4_6_P2);
    expect(jaccard(p1, p2)).toBe(2 / 5);
    expect(jaccard(p1, p1)).toBe(1);
    fc.assert(
      fc.property(profileArb, profileArb, (a, b) => {
        const j = jaccard(a, b);
        expect(j).toBe(jaccard(b, a));
        expect(j).toBeGreaterThanOrEqual(0);
        expect(j).toBeLessThanOrEqual(1);
        const inter = [...a.attributes()].filter((x) => b.has(x)).length;
        expect(j).toBe(inter / new Set([...a.attributes(), ...b.attributes()]).size);
      }),
      { numRuns: 300 },
    );
  });
});
