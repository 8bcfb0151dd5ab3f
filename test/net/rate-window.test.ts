import { describe, expect, it } from 'vitest';
import { RateWindows } from '../../src/net/rate-window.ts';

describe('per-peer rate windows on an injected clock', () => {
  it('lets `limit` requests of a peer through per window, and says when the next one starts', () => {
    let now = 5_000;
    const rate = new RateWindows(3, 1000, () => now);
    expect([1, 2, 3].map(() => rate.take('a'))).toEqual([undefined, undefined, undefined]);
    expect(rate.take('a')).toBe(1000);
    expect(rate.take('b')).toBeUndefined(); // peers count apart
    now = 5_750;
    expect(rate.take('a')).toBe(250); // same window
    now = 6_000;
    expect(rate.take('a')).toBeUndefined(); // the next one
  });

  it('starts afresh when the clock is set back', () => {
    let now = 10_000;
    const rate = new RateWindows(1, 1000, () => now);
    expect(rate.take('a')).toBeUndefined();
    expect(rate.take('a')).toBe(1000);
    now = 2_000;
    expect(rate.take('a')).toBeUndefined();
  });
});
