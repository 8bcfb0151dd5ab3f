import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interests, type Profile, ProfileError, parseProfile } from '../../src/index.ts';
import { matrixArb } from '../arbitraries.ts';

/** An 8-node graph like thesis fig 4.4: pruning edges below 1/3 leaves {1,2,6} and {0,4,5,7}. */
const FIG_4_4 = parseProfile({
  weights: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [String(i), 1 + i / 10])),
  relations: [
    ['1', '2', 0.5],
    ['2', '6', 0.4],
    ['1', '6', 0.2],
    ['0', '4', 0.9],
    ['4', '5', 1 / 3], // exactly the threshold: kept
    ['5', '7', 0.6],
    ['0', '7', 0.1],
    ['6', '0', 0.3], // weak bridge between the two groups: pruned
    ['3', '2', 0.25], // weak link: 3 ends up alone
  ],
});

const names = (ps: Profile[]) => ps.map((p) => [...p.attributes()]);

describe('interests (connected components)', () => {
  it('splits fig 4.4 into {1,2,6} and {0,4,5,7}, dropping the singleton {3}', () => {
    const out = interests(FIG_4_4, { minFreq: 1 / 3, minSize: 2 });
    expect(names(out)).toEqual([
      ['0', '4', '5', '7'],
      ['1', '2', '6'],
    ]);
    expect(out.every((p) => !p.isMatrix)).toBe(true);
    expect(out[1]?.weight('6')).toBe(1.6);
  });

  it('keeps singletons with minSize 1 and merges everything with minFreq 0', () => {
    expect(names(interests(FIG_4_4, { minFreq: 1 / 3, minSize: 1 }))).toEqual([
      ['0', '4', '5', '7'],
      ['1', '2', '6'],
      ['3'],
    ]);
    expect(names(interests(FIG_4_4, { minFreq: 0, minSize: 1 }))).toEqual([
      ['0', '1', '2', '3', '4', '5', '6', '7'],
    ]);
    expect(interests(FIG_4_4, { minFreq: 1 / 3, minSize: 5 })).toEqual([]);
  });

  it('never follows zero relations, and treats a weighted vector as isolated attributes', () => {
    const zero = parseProfile({ weights: { a: 1, b: 1 }, relations: [['a', 'b', 0]] });
    expect(names(interests(zero, { minFreq: 0, minSize: 1 }))).toEqual([['a'], ['b']]);
    const vector = parseProfile({ weights: { a: 1, b: 1, c: 1 } });
    expect(names(interests(vector, { minFreq: 0, minSize: 2 }))).toEqual([]);
  });

  it('follows a long chain through a single path', () => {
    const n = 50;
    const chain = parseProfile({
      weights: Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, 1])),
      relations: Array.from({ length: n - 1 }, (_, i) => [`t${i + 1}`, `t${i}`, 0.5]),
    });
    expect(interests(chain, { minFreq: 0.5, minSize: n })).toHaveLength(1);
    expect(interests(chain, { minFreq: 0.51, minSize: 2 })).toHaveLength(0);
  });

  it('rejects bad options', () => {
    expect(() => interests(FIG_4_4, { minFreq: -1, minSize: 1 })).toThrow(ProfileError);
    expect(() => interests(FIG_4_4, { minFreq: 0.1, minSize: 0 })).toThrow('minSize');
    expect(() => interests(FIG_4_4, { minFreq: Number.NaN, minSize: 1 })).toThrow('minFreq');
  });

  it('partitions the attributes into connected groups with no kept edge between them', () => {
    fc.assert(
      fc.property(matrixArb, fc.double({ min: 0, max: 2, noNaN: true }), (p, minFreq) => {
        const parts = interests(p, { minFreq, minSize: 1 });
        const where = new Map<string, number>();
        parts.forEach((part, i) => {
          for (const a of part.attributes()) where.set(a, i);
        });
        expect(where.size).toBe(p.size); // every attribute exactly once
        for (const [a, b, rel] of p.relations) {
          if (rel > 0 && rel >= minFreq) expect(where.get(a)).toBe(where.get(b));
        }
        for (const part of parts) {
          // connected: a search over kept edges from the first attribute reaches all of it
          const attrs = [...part.attributes()];
          const seen = new Set([attrs[0]]);
          const stack = [attrs[0] as string];
          while (stack.length) {
            const o = stack.pop() as string;
            for (const [o2, rel] of p.neighbours(o)) {
              if (rel > 0 && rel >= minFreq && !seen.has(o2)) {
                seen.add(o2);
                stack.push(o2);
              }
            }
          }
          expect(seen.size).toBe(part.size);
          for (const a of attrs) expect(part.weight(a)).toBe(p.weight(a));
        }
      }),
      { numRuns: 300 },
    );
  });
});
