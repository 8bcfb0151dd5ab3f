import { describe, expect, it } from 'vitest';
import {
  DEADLINE_FACTOR,
  DEFAULT_FLOOR_MS,
  Deadlines,
  DIAL_REQUESTS,
  PEER_BACKOFF,
  roundTrips,
  Smoothed,
} from '../../src/net/round-trips.ts';

describe('Smoothed (RFC 6298 SRTT and RTTVAR)', () => {
  it('starts at the first sample with half of it as deviation, then moves 1/8 and 1/4', () => {
    const s = new Smoothed();
    s.add(400);
    expect([s.srtt, s.rttvar, s.rto]).toEqual([400, 200, 1200]);
    s.add(200);
    // RTTVAR = 3/4 · 200 + 1/4 · |400 − 200|; SRTT = 7/8 · 400 + 1/8 · 200
    expect(s.rttvar).toBe(200);
    expect(s.srtt).toBe(375);
  });

  it('settles on a steady duration: the deviation decays towards 0', () => {
    const s = new Smoothed();
    for (let i = 0; i < 100; i++) s.add(300);
    expect(s.srtt).toBe(300);
    expect(s.rttvar).toBeLessThan(1e-6);
  });
});

describe('Deadlines', () => {
  it('waits the configured bound until something was seen', () => {
    const d = new Deadlines({ boundMs: 10_000 });
    expect(d.deadline()).toBe(10_000);
    expect(d.deadline('peer-a')).toBe(10_000);
  });

  it('then a few times the expected wait, never under the floor nor over the bound', () => {
    const d = new Deadlines({ boundMs: 10_000 });
    for (let i = 0; i < 50; i++) d.done(600);
    expect(d.deadline()).toBeCloseTo(DEADLINE_FACTOR * 600, 0);
    const fast = new Deadlines({ boundMs: 10_000 });
    for (let i = 0; i < 50; i++) fast.done(5);
    expect(fast.deadline()).toBe(DEFAULT_FLOOR_MS);
    const slow = new Deadlines({ boundMs: 2_000 });
    for (let i = 0; i < 50; i++) slow.done(1_500);
    expect(slow.deadline()).toBe(2_000);
    expect(new Deadlines({ boundMs: 300 }).floorMs).toBe(300);
  });

  it('gives a peer that answered its own deadline; others get the node-wide one', () => {
    const d = new Deadlines({ boundMs: 60_000 });
    for (let i = 0; i < 5; i++) d.done(2_000, 'far');
    for (let i = 0; i < 50; i++) d.done(200, `near-${i}`);
    expect(d.deadline('far')).toBeGreaterThanOrEqual(DEADLINE_FACTOR * 2_000);
    expect(d.deadline('never-seen')).toBe(d.deadline());
    expect(d.deadline('never-seen')).toBeLessThan(d.deadline('far'));
  });

  it('after timeouts, deadlines double until a wait finishes; that peer keeps a longer one', () => {
    const d = new Deadlines({ boundMs: 600_000 });
    for (let i = 0; i < 50; i++) d.done(400, 'p');
    const before = d.deadline('p');
    const nodeWide = d.deadline();
    d.timedOut(before, 'p');
    expect(d.timeouts).toBe(1);
    expect(d.deadline()).toBeCloseTo(2 * nodeWide, 6);
    d.timedOut(nodeWide * 2);
    expect(d.deadline()).toBeCloseTo(4 * nodeWide, 6);
    d.done(400, 'q');
    expect(d.deadline()).toBeCloseTo(nodeWide, 0);
    expect(d.deadline('p')).toBeCloseTo(PEER_BACKOFF * before, 6);
    // Running out at the bound itself is not an adaptive timeout.
    d.timedOut(600_000);
    expect(d.timeouts).toBe(2);
  });

  it('counts a burst of timeouts of waits started together as one', () => {
    let now = 0;
    const d = new Deadlines({ boundMs: 600_000, now: () => now });
    for (let i = 0; i < 50; i++) d.done(400);
    const nodeWide = d.deadline();
    // Twenty waits started at 0 run out together: one doubling, not 2^20.
    now = 1_000;
    for (let i = 0; i < 20; i++) d.timedOut(nodeWide, `p${i}`, 0);
    expect(d.timeouts).toBe(20);
    expect(d.deadline()).toBeCloseTo(2 * nodeWide, 6);
    // A wait started after that doubling that runs out too: the network did become slower.
    now = 5_000;
    d.timedOut(2 * nodeWide, 'p0', 2_000);
    expect(d.deadline()).toBeCloseTo(4 * nodeWide, 6);
    // Waits started before a wait finished do not double the deadline back up.
    now = 6_000;
    d.done(400);
    now = 7_000;
    d.timedOut(4 * nodeWide, 'p1', 3_000);
    expect(d.deadline()).toBeCloseTo(nodeWide, 0);
  });

  it('waits the same for a peer that keeps timing out; a peer that answers gets its own again', () => {
    const d = new Deadlines({ boundMs: 600_000 });
    for (let i = 0; i < 5; i++) d.done(2_000, 'far');
    for (let i = 0; i < 50; i++) d.done(400, `near-${i}`);
    const far = d.deadline('far');
    for (let i = 0; i < 5; i++) {
      d.timedOut(d.deadline('dead'), 'dead');
      d.done(400);
    }
    // Not 2^5 (nor 3^5, as when its last deadline became its estimate) times the node-wide one.
    expect(d.deadline('dead')).toBeCloseTo(PEER_BACKOFF * d.deadline(), 6);
    d.timedOut(far, 'far');
    d.done(400);
    expect(d.deadline('far')).toBeCloseTo(PEER_BACKOFF * far, 0);
    d.done(2_000, 'far');
    expect(d.deadline('far')).toBeLessThan(PEER_BACKOFF * far);
    expect(d.deadline('far')).toBeGreaterThan(d.deadline());
  });

  it('refuses a bound that is not positive', () => {
    expect(() => new Deadlines({ boundMs: 0 })).toThrow(RangeError);
  });
});

describe('roundTrips', () => {
  it('waits for a dial as for a few requests at least, not for the bound', () => {
    // A node whose connections its DHTs opened has timed no dial of its own; the first ones
    // may be to peers that stopped answering (measured: searches held for libp2p's 6 s).
    const w = roundTrips({ requestTimeoutMs: 10_000, lookupTimeoutMs: 20_000 });
    expect(w.dial.deadline()).toBe(10_000);
    for (let i = 0; i < 50; i++) w.request.done(600);
    const first = w.dial.deadline();
    expect(first).toBeCloseTo(DIAL_REQUESTS * w.request.deadline(), 0);
    expect(first).toBeLessThan(10_000);
    // Dials that ran out tell of their peers: no backoff for the next dial…
    w.dial.timedOut(first);
    w.dial.timedOut(first);
    expect(w.dial.deadline()).toBe(first);
    // …but a network that became slower, as its requests tell, is waited for by dials too.
    w.request.timedOut(w.request.deadline());
    expect(w.dial.deadline()).toBeCloseTo(2 * first, 0);
    w.request.done(600);
    expect(w.dial.deadline()).toBeCloseTo(first, -1);
    // A dial that finished counts as its own estimate when that is longer.
    for (let i = 0; i < 50; i++) w.dial.done(1_500);
    expect(w.dial.deadline()).toBeCloseTo(DEADLINE_FACTOR * 1_500, 0);
  });
});

describe('unresponsive peers', () => {
  it('a peer is missed from its timeout (or a failed dial) until something is heard from it', () => {
    const d = new Deadlines({ boundMs: 10_000 });
    expect(d.missed('a')).toBe(false);
    d.timedOut(1_000, 'a');
    d.miss('b');
    expect(d.missed('a')).toBe(true);
    expect(d.missed('b')).toBe(true);
    d.heard('a');
    expect(d.missed('a')).toBe(false);
    d.done(300, 'b');
    expect(d.missed('b')).toBe(false);
  });
});
