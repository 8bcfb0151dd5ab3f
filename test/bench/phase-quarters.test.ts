import { describe, expect, it } from 'vitest';
import { quarterClock, quarters, type Reading } from '../../bench/phase-quarters.ts';

const r = (cpuMs: number, messages: number, opened: number): Reading => ({
  cpuMs,
  messages,
  opened,
});

describe('the searches in quarters', () => {
  it('gives each quarter what its readings differ by', () => {
    const q = quarters([r(0, 0, 0), r(10, 100, 1), r(30, 200, 1), r(40, 250, 3), r(41, 260, 3)]);
    expect(q).toEqual([
      { cpuMs: 10, messages: 100, opened: 1 },
      { cpuMs: 20, messages: 100, opened: 0 },
      { cpuMs: 10, messages: 50, opened: 2 },
      { cpuMs: 1, messages: 10, opened: 0 },
    ]);
  });

  it('reads the counters after each quarter of the searches, and at the end', () => {
    let messages = 0;
    let opened = 0;
    const clock = quarterClock(() => ({ messages, opened }), 8);
    // Search i sends i + 1 messages; the fifth opens a connection.
    for (let i = 0; i < 8; i++) {
      messages += i + 1;
      if (i === 4) opened++;
      clock.increment();
    }
    clock.stop();
    const q = clock.quarters();
    expect(q.map((x) => x.messages)).toEqual([1 + 2, 3 + 4, 5 + 6, 7 + 8]);
    expect(q.map((x) => x.opened)).toEqual([0, 0, 1, 0]);
    expect(q.every((x) => x.cpuMs >= 0)).toBe(true);
  });

  it('gives no quarters for a phase too short to have them', () => {
    const clock = quarterClock(() => ({ messages: 0, opened: 0 }), 2);
    clock.increment();
    clock.stop();
    expect(clock.quarters()).toEqual([]);
    expect(quarters([r(0, 0, 0), r(5, 50, 0)])).toEqual([]);
  });
});
