import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TimerQueue } from '../../../sim/network/timer-queue.ts';

describe('the network timer queue', () => {
  it('runs entries in due order, equal times in the order scheduled, never before due', async () => {
    const q = new TimerQueue();
    const ran: { name: string; at: number; due: number }[] = [];
    const start = q.now();
    const add = (name: string, after: number) => {
      const due = start + after;
      q.at(due, { due: 0, seq: 0, run: () => ran.push({ name, at: q.now(), due }) });
    };
    add('c', 30);
    add('a1', 10);
    add('b', 20);
    add('a2', 10);
    add('a3', 10);
    await new Promise<void>((resolve) => {
      q.at(start + 31, { due: 0, seq: 0, run: resolve });
    });
    expect(ran.map((r) => r.name)).toEqual(['a1', 'a2', 'a3', 'b', 'c']);
    for (const r of ran) expect(r.at).toBeGreaterThanOrEqual(r.due);
    expect(q.size).toBe(0);
  });

  it('clear drops what waits', async () => {
    const q = new TimerQueue();
    let ran = false;
    q.at(q.now() + 5, { due: 0, seq: 0, run: () => (ran = true) });
    q.clear();
    await sleep(30);
    expect(ran).toBe(false);
    expect(q.size).toBe(0);
  });
});
