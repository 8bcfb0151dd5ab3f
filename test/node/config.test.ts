import { describe, expect, it } from 'vitest';
import { DEFAULT_SWARM, resolveSwarm } from '../../src/index/swarm.ts';
import { ParamsError } from '../../src/keys/params.ts';
import {
  DEFAULT_LIMITS,
  DEFAULT_TIMING,
  nodeOptionsFrom,
  resolveLimits,
  resolveTiming,
} from '../../src/node/config.ts';
import { MAX_K, MAX_REPLICAS, SETTINGS } from '../../src/settings/table.ts';

describe('node options from the settings table', () => {
  it('takes its defaults from the table', () => {
    for (const [name, s] of Object.entries(SETTINGS.timing))
      expect(DEFAULT_TIMING[name as keyof typeof DEFAULT_TIMING]).toBe(s.default);
    for (const [name, s] of Object.entries(SETTINGS.limits))
      expect(DEFAULT_LIMITS[name as keyof typeof DEFAULT_LIMITS]).toBe(s.default);
    expect(DEFAULT_SWARM).toMatchObject({ k: 5, l: 3, s: 5, replicas: 3 });
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(resolveTiming()).toEqual(DEFAULT_TIMING);
  });

  it('refuses values outside the ranges, naming the setting', () => {
    expect(resolveLimits({ maxFrameBytes: 4096, inboxFilterCells: 1024 })).toMatchObject({
      maxFrameBytes: 4096,
    });
    for (const [bad, name] of [
      [{ concurrency: 0 }, 'limits.concurrency: must be an integer >= 1'],
      [{ maxFrameBytes: 4095 }, 'limits.maxFrameBytes: must be an integer in [4096,'],
      [{ queryReplicas: MAX_REPLICAS + 1 }, 'limits.queryReplicas'],
      [{ inboxCapacity: 1.5 }, 'limits.inboxCapacity'],
      // The search experiments' switches are gone: naming one is an error, not a no-op.
      [{ briefReplies: 0 }, 'limits.briefReplies: is not a setting'],
    ] as const)
      expect(() => resolveLimits(bad as never)).toThrow(name);
    expect(() => resolveLimits({ concurrency: 0 })).toThrow(ParamsError);
  });

  it('keeps the timing rules: a tombstone outlives a record, a record outlives a republish round', () => {
    expect(resolveTiming({ closestCacheMs: 0 }).closestCacheMs).toBe(0);
    expect(resolveTiming({}).pingIntervalMs).toBe(10_000);
    expect(resolveTiming({ pingIntervalMs: 0 }).pingIntervalMs).toBe(0);
    expect(() => resolveTiming({ pingIntervalMs: -1 })).toThrow(/timing\.pingIntervalMs/);
    expect(() => resolveTiming({ requestTimeoutMs: 0 })).toThrow(/timing\.requestTimeoutMs/);
    expect(() => resolveTiming({ recordTtlMs: 60_000, republishIntervalMs: 60_000 })).toThrow(
      /timing\.recordTtlMs: must exceed republishIntervalMs/,
    );
    expect(() => resolveTiming({ tombstoneTtlMs: 3_600_000 })).toThrow(
      /timing\.tombstoneTtlMs: must be at least recordTtlMs/,
    );
    // Node's timers run anything longer than 2³¹ ms after 1 ms: such durations are refused.
    expect(() => resolveTiming({ expireIntervalMs: 2 ** 31 })).toThrow(/expireIntervalMs/);
  });

  it('checks the swarm parameters against the same ranges the CLI and scenarios use', () => {
    expect(resolveSwarm({ k: MAX_K, replicas: MAX_REPLICAS, l: 0, s: 0 }).params.k).toBe(MAX_K);
    expect(() => resolveSwarm({ k: MAX_K + 1 })).toThrow(/^k: must be an integer in \[1, 1000\]/);
    expect(() => resolveSwarm({ replicas: MAX_REPLICAS + 1 })).toThrow(/replicas/);
    expect(() => resolveSwarm({ l: -1 })).toThrow(/^l: /);
    // Parameters off the wire may be anything.
    expect(() => resolveSwarm({ s: '5' as never })).toThrow(/^s: /);
  });

  it('maps settings shaped like the config file onto node options', () => {
    expect(
      nodeOptionsFrom({
        index: 'lsh',
        lsh: { n: 8, seed: 'x' },
        k: 7,
        timing: { recordTtlMs: 9_000_000, requestTimeoutMs: undefined },
        limits: { concurrency: 2 },
        dht: { alpha: 2, kBucketSize: undefined },
      }),
    ).toEqual({
      swarm: {
        index: { mode: 'lsh', n: 8, m: 1, seed: 'x', family: 'oph', bits: 64 },
        k: 7,
      },
      timing: { recordTtlMs: 9_000_000 },
      limits: { concurrency: 2 },
      dht: { alpha: 2 },
    });
    expect(nodeOptionsFrom({ index: 'attribute', lsh: { n: 8 } }).swarm).toEqual({
      index: { mode: 'attribute' },
    });
    // A scenario's `params reachability=…` reaches in-process nodes the same way.
    expect(nodeOptionsFrom({ reachability: 'public' }).reachability).toBe('public');
    expect(nodeOptionsFrom({}).reachability).toBeUndefined();
  });
});
