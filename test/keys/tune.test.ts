import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  collisionProbability,
  DEFAULT_BAND_COST,
  falseNegativeArea,
  falsePositiveArea,
  integrate,
  ParamsError,
  type TuneOptions,
  tuneLsh,
} from '../../src/index.ts';

const thresholdArb = fc.double({ min: 0.05, max: 0.95, noNaN: true });
const weightArb = fc.double({ min: 0.01, max: 1, noNaN: true });

describe('integrate', () => {
  it('is exact for cubics and accurate for smooth and steep functions', () => {
    // [x⁴/4 − x² + x] from −1 to 2 = 2 − (−1.75)
    expect(integrate((x) => x ** 3 - 2 * x + 1, -1, 2)).toBeCloseTo(3.75, 12);
    expect(integrate(Math.sin, 0, Math.PI)).toBeCloseTo(2, 10);
    // A step within the first 1 % of the interval: the adaptive halving must find it.
    expect(integrate((x) => 1 - (1 - x) ** 1024, 0, 0.5)).toBeCloseTo(0.5 - 1 / 1025, 10);
  });
});

describe('collisionProbability', () => {
  it('is 1 − (1 − s^m)^n', () => {
    // The SPEC's example: p = 0.7, n = 20, m = 5 → 0.975.
    expect(collisionProbability(0.7, 20, 5)).toBeCloseTo(0.975, 3);
    expect(collisionProbability(0.5, 1, 1)).toBe(0.5);
    expect(collisionProbability(0, 20, 5)).toBe(0);
    expect(collisionProbability(1, 20, 5)).toBe(1);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 8 }),
        (s, n, m) => {
          expect(collisionProbability(s, n, m)).toBeCloseTo(1 - (1 - s ** m) ** n, 12);
        },
      ),
    );
  });

  it('keeps its digits where 1 − (1 − x)^n rounds to 0', () => {
    expect(collisionProbability(1e-9, 3, 2)).toBeCloseTo(3e-18, 30);
  });
});

describe('false positive and false negative areas', () => {
  it('match the closed forms', () => {
    fc.assert(
      fc.property(thresholdArb, fc.integer({ min: 1, max: 1024 }), (t, n) => {
        // m = 1: ∫₀ᵗ 1 − (1 − s)^n ds and ∫ₜ¹ (1 − s)^n ds.
        expect(falsePositiveArea(t, n, 1)).toBeCloseTo(t - (1 - (1 - t) ** (n + 1)) / (n + 1), 9);
        expect(falseNegativeArea(t, n, 1)).toBeCloseTo((1 - t) ** (n + 1) / (n + 1), 9);
      }),
    );
    fc.assert(
      fc.property(thresholdArb, fc.integer({ min: 1, max: 64 }), (t, m) => {
        // n = 1: ∫₀ᵗ s^m ds and ∫ₜ¹ 1 − s^m ds.
        expect(falsePositiveArea(t, 1, m)).toBeCloseTo(t ** (m + 1) / (m + 1), 9);
        expect(falseNegativeArea(t, 1, m)).toBeCloseTo(1 - t - (1 - t ** (m + 1)) / (m + 1), 9);
      }),
    );
    expect(falsePositiveArea(0.3, 1, 1)).toBeCloseTo(0.3 ** 2 / 2, 12);
  });

  it("reproduce datasketch's _optimal_param choices (threshold 0.75, num_perm 256)", () => {
    const optimal = (wFP: number, wFN: number) => {
      let best = Number.POSITIVE_INFINITY;
      let opt = [0, 0];
      for (let b = 1; b <= 256; b++) {
        for (let r = 1; r <= Math.floor(256 / b); r++) {
          const e = wFP * falsePositiveArea(0.75, b, r) + wFN * falseNegativeArea(0.75, b, r);
          if (e < best) [best, opt] = [e, [b, r]];
        }
      }
      return opt;
    };
    // The examples in datasketch's docstring, computed there with scipy's quad.
    expect(optimal(0.5, 0.5)).toEqual([21, 12]);
    expect(optimal(0.1, 0.9)).toEqual([28, 9]);
  });
});

describe('tuneLsh', () => {
  it('with band cost 0 chooses the brute-force least error over the grid', () => {
    for (const [threshold, wFP, wFN] of [
      [0.5, 0.5, 0.5],
      [0.3, 0.2, 0.8],
      [0.8, 0.9, 0.1],
    ] as const) {
      const options = {
        threshold,
        falsePositiveWeight: wFP,
        falseNegativeWeight: wFN,
        bandCost: 0,
        maxBands: 12,
        maxRows: 6,
      };
      let best = { n: 0, m: 0, error: Number.POSITIVE_INFINITY };
      for (let n = 1; n <= 12; n++) {
        for (let m = 1; m <= 6; m++) {
          const error =
            wFP * falsePositiveArea(threshold, n, m) + wFN * falseNegativeArea(threshold, n, m);
          if (error < best.error) best = { n, m, error };
        }
      }
      const { chosen } = tuneLsh(options);
      expect([chosen.n, chosen.m]).toEqual([best.n, best.m]);
      expect(chosen.error).toBe(best.error);
      expect(chosen.objective).toBe(chosen.error);
    }
  });

  it('reports the curve, the costs and the chosen S-curve', () => {
    const r = tuneLsh({ threshold: 0.5 });
    expect(r.options).toEqual({
      threshold: 0.5,
      falsePositiveWeight: 0.5,
      falseNegativeWeight: 0.5,
      bandCost: DEFAULT_BAND_COST,
      maxBands: 32,
      maxRows: 8,
    });
    expect(r.curve.map((c) => c.n)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect(r.curve.filter((c) => c.chosen)).toEqual([{ ...r.chosen, chosen: true }]);
    for (const c of r.curve) {
      expect(c.lookupsPerSearch).toBe(c.n);
      expect(c.copiesPerProfile).toBe(c.n);
      expect(c.cost).toBe(DEFAULT_BAND_COST * c.n);
      expect(c.objective).toBe(c.error + c.cost);
      expect(c.objective).toBeGreaterThanOrEqual(r.chosen.objective);
    }
    expect(r.sCurve).toHaveLength(21);
    expect(r.sCurve[0]).toEqual({ s: 0, p: 0 });
    expect(r.sCurve[14]?.s).toBe(0.7);
    expect(r.sCurve[14]?.p).toBe(collisionProbability(0.7, r.chosen.n, r.chosen.m));
    expect(r.sCurve[20]).toEqual({ s: 1, p: 1 });
  });

  it('never lowers recall (raises the FN area) when the false-negative weight grows', () => {
    fc.assert(
      fc.property(
        thresholdArb,
        weightArb,
        weightArb,
        fc.double({ min: 1, max: 10, noNaN: true }),
        fc.constantFrom(0, 0.001, 0.005),
        (threshold, wFP, wFN, factor, bandCost) => {
          const base = { threshold, falsePositiveWeight: wFP, bandCost, maxBands: 12, maxRows: 6 };
          const low = tuneLsh({ ...base, falseNegativeWeight: wFN }).chosen;
          const high = tuneLsh({ ...base, falseNegativeWeight: wFN * factor }).chosen;
          expect(high.falseNegative).toBeLessThanOrEqual(low.falseNegative + 1e-12);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('never chooses more bands when a band costs more', () => {
    fc.assert(
      fc.property(
        thresholdArb,
        weightArb,
        weightArb,
        fc.double({ min: 0, max: 0.01, noNaN: true }),
        fc.double({ min: 0, max: 0.01, noNaN: true }),
        (threshold, wFP, wFN, c1, c2) => {
          const base = {
            threshold,
            falsePositiveWeight: wFP,
            falseNegativeWeight: wFN,
            maxBands: 16,
            maxRows: 6,
          };
          const cheap = tuneLsh({ ...base, bandCost: Math.min(c1, c2) }).chosen;
          const dear = tuneLsh({ ...base, bandCost: Math.max(c1, c2) }).chosen;
          expect(dear.n).toBeLessThanOrEqual(cheap.n);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('names the bad option', () => {
    const bad: [Partial<TuneOptions>, string][] = [
      [{ threshold: 0 }, 'threshold'],
      [{ threshold: 1 }, 'threshold'],
      [{ threshold: Number.NaN }, 'threshold'],
      [{ falsePositiveWeight: -1 }, 'falsePositiveWeight'],
      [{ falseNegativeWeight: Number.POSITIVE_INFINITY }, 'falseNegativeWeight'],
      [{ falsePositiveWeight: 0, falseNegativeWeight: 0 }, 'falseNegativeWeight'],
      [{ bandCost: -0.1 }, 'bandCost'],
      [{ maxBands: 0 }, 'maxBands'],
      [{ maxBands: 1025 }, 'maxBands'],
      [{ maxRows: 2.5 }, 'maxRows'],
      [{ maxRows: 65 }, 'maxRows'],
    ];
    for (const [patch, field] of bad) {
      const call = () => tuneLsh({ threshold: 0.5, ...patch });
      expect(call).toThrow(ParamsError);
      expect(call).toThrow(new RegExp(`^${field}: `));
    }
  });
});
