import { describe, expect, it } from 'vitest';
import { indexKeys } from '../../src/index.ts';
import { hex } from '../../src/util/bytes.ts';
import { type AttributeKind, bandCollisionProbability, jaccardPairs } from './pairs.ts';

/**
 * Thesis experiment 5.3.1 as a test: for pairs of 150-attribute sets of Jaccard s, the rate of
 * "at least one shared DHT key" must stay within ±0.05 of 1 − (1 − s^m)^n. 1500 pairs per point
 * put the binomial standard deviation at ≤ 0.013, so ±0.05 is ≈ 4σ: a correct family passes
 * whatever the seed, a biased one does not.
 */
const PAIRS_PER_POINT = 1500;
const LEVELS = [0.2, 0.4, 0.6, 0.8];
const COMBOS = [15, 20].flatMap((n) => [1, 2, 3].map((m) => ({ n, m })));

export function collisionSuite(family: string): void {
  describe(`LSH family "${family}": collision rate tracks 1 − (1 − s^m)^n`, () => {
    it.each<AttributeKind>(['hashed', 'consecutive'])('on %s attributes', (kind) => {
      const failures: string[] = [];
      for (const s of LEVELS) {
        const pairs = jaccardPairs(kind, 150, s, PAIRS_PER_POINT, `collision-${family}`);
        for (const { n, m } of COMBOS) {
          const params = { mode: 'lsh' as const, n, m, seed: `test-${family}`, family };
          let hits = 0;
          for (const { a, b } of pairs) {
            const ka = new Set(indexKeys(a, params).map(hex));
            if (indexKeys(b, params).some((k) => ka.has(hex(k)))) hits++;
          }
          const j = (pairs[0] as { jaccard: number }).jaccard;
          const rate = hits / pairs.length;
          const theory = bandCollisionProbability(j, n, m);
          if (Math.abs(rate - theory) > 0.05) {
            failures.push(
              `J=${j.toFixed(3)} n=${n} m=${m}: ${rate.toFixed(3)} vs ${theory.toFixed(3)}`,
            );
          }
        }
      }
      expect(failures).toEqual([]);
    });
  });
}
