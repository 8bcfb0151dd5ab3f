import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leaveOutSeen } from '../../src/index/responder.ts';
import {
  buildSeenFilter,
  MAX_SEEN_BYTES,
  SEEN_FALSE_POSITIVE_RATE,
  type SeenFilter,
  seenFalsePositiveRate,
  seenFilterSize,
  seenHas,
} from '../../src/index/seen-filter.ts';

const id = (i: number) => i.toString(16).padStart(64, '0');

describe('seen filter', () => {
  it('holds every item put in it (no false negatives), for any set', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 1e6 }), fc.nat(50)), {
          minLength: 1,
          maxLength: 300,
        }),
        (items) => {
          const f = buildSeenFilter(items.map(([i, v]) => ({ id: id(i), version: v })));
          expect(f).not.toBeNull();
          for (const [i, v] of items) expect(seenHas(f as SeenFilter, id(i), v)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is sized for at most 0.1% false positives at the number of items it holds', () => {
    for (const n of [1, 5, 20, 100, 1000, 4000]) {
      const { bytes, k } = seenFilterSize(n);
      expect(bytes).toBeLessThanOrEqual(MAX_SEEN_BYTES);
      expect(seenFalsePositiveRate(bytes * 8, k, n)).toBeLessThanOrEqual(SEEN_FALSE_POSITIVE_RATE);
    }
  });

  it('measures at most about 0.1% false positives on 200,000 absent items', () => {
    const n = 200;
    const f = buildSeenFilter(
      Array.from({ length: n }, (_, i) => ({ id: id(i), version: 1 })),
    ) as SeenFilter;
    let fp = 0;
    const trials = 200_000;
    // Absent: other ids, and the held ids at another version (a newer record must pass).
    for (let t = 0; t < trials; t++) {
      if (t % 2 === 0 ? seenHas(f, id(10_000_000 + t), 1) : seenHas(f, id(t % n), 2 + t)) fp++;
    }
    // 0.1% expected = 200 of 200,000; 4 binomial standard deviations above is 257.
    expect(fp / trials).toBeLessThanOrEqual(
      SEEN_FALSE_POSITIVE_RATE + 4 * Math.sqrt(0.001 / trials),
    );
    expect(fp).toBeGreaterThan(0);
  });

  it('gives up (null) rather than exceed its byte budget', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ id: id(i), version: 1 }));
    expect(buildSeenFilter(items, 100)).toBeNull();
    expect(buildSeenFilter(items, 1000)).not.toBeNull();
    expect(buildSeenFilter([])).toBeNull();
    expect(
      buildSeenFilter(Array.from({ length: 5000 }, (_, i) => ({ id: id(i), version: 1 }))),
    ).toBeNull();
  });

  it('makes a responder leave out exactly the held versions, after choosing its top k', () => {
    const rec = (i: number, version: number, similarity: number) => ({
      record: { id: id(i), version } as never,
      similarity,
    });
    const ranked = [rec(1, 3, 0.9), rec(2, 1, 0.8), rec(3, 1, 0.7)];
    const f = buildSeenFilter([
      { id: id(1), version: 2 }, // an older version: the newer one must still be sent
      { id: id(2), version: 1 },
    ]) as SeenFilter;
    const { kept, omitted } = leaveOutSeen(ranked, f);
    expect(kept.map((r) => (r.record as { id: string }).id)).toEqual([id(1), id(3)]);
    expect(omitted).toBe(1);
    expect(leaveOutSeen(ranked, undefined)).toEqual({ kept: ranked, omitted: 0 });
  });
});
