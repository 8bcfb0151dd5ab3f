/**
 * `cidx sim --workers <n>`: the in-process swarm spread over worker threads, nodes of different
 * threads connected over MessagePorts (sim/shards). The same scenario must give the same
 * answers as in one thread, with connections crossing threads, a crashed node's connections
 * across threads reset, and statements the mode cannot run refused before the run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation } from '../../sim/cli.ts';
import { runScenario } from '../../sim/interpreter.ts';
import { CAPABILITIES } from '../../sim/modes.ts';
import { Rng } from '../../sim/random.ts';
import type { SimReport } from '../../sim/report/types.ts';
import { parseScenario } from '../../sim/scenario.ts';
import { ShardedSwarm } from '../../sim/shards/swarm.ts';
import { parseProfile } from '../../src/profile/parse.ts';

const dir = mkdtempSync(join(tmpdir(), 'cidx-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// searchQuorum=100: a search that ends on a quorum drops the keys that answer last, and which
// those are depends on how the threads are scheduled; this scenario compares answers exactly.
const TEXT = `
seed 5
index lsh n=10 m=1 seed=workers
params k=3 replicas=3 searchQuorum=100
timing republish=10m ttl=30m tombstone=1h
dataset communities synthetic count=10 size=20 topics=4
at 0s join 12
at +0s create communities from=0-3
at +0s search communities exact from=4-11
at +0s kill 2 which=holders
at +0s republish
at +0s check findable
at +0s search communities exact from=4-11
`;

/** Runs `text` in this thread (no `workers`) or in that many; counts the connections across. */
async function run(
  text: string,
  name: string,
  workers: number | undefined,
): Promise<{ report: SimReport; cross: number }> {
  const file = join(dir, `${name}.scenario`);
  writeFileSync(file, text);
  let swarm: ShardedSwarm | undefined;
  let cross = 0;
  const report = await runScenario(parseScenario(text, file), {
    file,
    progress: false,
    ...(workers === undefined
      ? {}
      : {
          swarm: {
            name: 'workers' as const,
            can: CAPABILITIES.workers,
            create: (config, rng) => {
              swarm = new ShardedSwarm(config, rng, workers);
              return swarm;
            },
          },
        }),
    aroundCommand: async (_command, go) => {
      await go();
      if (swarm !== undefined)
        cross = (await swarm.meters()).reduce((n, m) => n + m.crossConnections, 0);
    },
  });
  return { report, cross };
}

describe('a scenario on 12 nodes in 3 worker threads', () => {
  it('finds what one thread finds, across threads, also after holders crash', async () => {
    const one = await run(TEXT, 'one', undefined);
    const three = await run(TEXT, 'three', 3);
    for (const { report } of [one, three]) {
      expect(report.expects).toEqual([]);
      expect(report.metrics['search.unresolved']).toBe(0);
      expect(report.metrics['search.top1_agreement']).toBe(1);
      expect(report.metrics['communities.findable']).toBe(1);
      expect(report.metrics['nodes.alive']).toBe(10);
    }
    expect(three.report.scenario.mode).toBe('workers');
    expect(three.report.metrics['search.precision']).toBe(one.report.metrics['search.precision']);
    // Two of every three connections join nodes of different threads: they carried the run.
    expect(three.cross).toBeGreaterThan(20);
    // Every protocol's traffic is summed over the threads.
    for (const p of ['cidx', 'profiles_dht', 'addresses_dht', 'identify'])
      expect(three.report.metrics[`traffic.${p}.bytes`], p).toBeGreaterThan(0);
    expect(three.report.metrics['lookup.count']).toBeGreaterThan(0);
  }, 120_000);

  it('reports a node that cannot start, and ends its threads', async () => {
    const swarm = new ShardedSwarm(
      {
        node: { swarm: {}, timing: { requestTimeoutMs: -1 } },
        settings: {},
      },
      new Rng(1, 'workers-test'),
      2,
    );
    await expect(swarm.join(1, 0)).rejects.toThrow(/timing\.requestTimeoutMs/);
    await swarm.stop();
  });
});

describe('the network model across worker threads', () => {
  it('delays every connection, within a thread and across threads, as in one thread', async () => {
    const text = `
seed 9
index lsh n=6 m=1 seed=workers-net
network latency=30ms
dataset communities synthetic count=4 size=12 topics=2
at 0s join 8
at +0s create communities from=0-1
at +0s search communities exact from=2-7
`;
    const { report, cross } = await run(text, 'latency', 2);
    const m = report.metrics;
    expect(m['search.unresolved']).toBe(0);
    expect(m['search.top1_agreement']).toBe(1);
    // Every connection's round trip is the model's, 2 × 30 ms, whichever threads it joins.
    expect(m['network.rtt_p50_ms']).toBe(60);
    expect(m['network.rtt_p95_ms']).toBe(60);
    expect(m['network.connections']).toBeGreaterThan(8);
    expect(cross).toBeGreaterThan(0);
    // A search waits for round trips: at least its query's, routed over open connections.
    expect(m['search.rtts_p50']).toBeGreaterThanOrEqual(1);
    expect(report.network?.description).toContain('one-way delay 30 ms');
  }, 60_000);
});

describe('a connection between two threads', () => {
  it('takes the round trips the model gives it: to open, and for every request', async () => {
    const swarm = new ShardedSwarm(
      { node: { swarm: {} }, settings: {}, network: { seed: 1, latencyMs: 50 } },
      new Rng(1, 'workers-rtt'),
      2,
    );
    try {
      await swarm.join(1, 0);
      // Node 1 runs in the other thread and bootstraps to node 0: its first dial crosses.
      const t0 = performance.now();
      await swarm.join(1, 0);
      const joined = performance.now() - t0;
      const t1 = performance.now();
      const found = await swarm.peers[1]?.search(parseProfile({ weights: { a: 1, b: 2 } }), 3);
      const searched = performance.now() - t1;
      expect(found).toEqual([]);
      // Round trip 100 ms. Joining: the dial, the plaintext exchange (the multiplexer's name
      // goes with the first frames) and the join's first lookup, at least. A search: a lookup,
      // with the query and the probes sent ahead to the peer it queries — one round trip at
      // least. Only the model's delays make these (a slower machine adds to them).
      expect(joined).toBeGreaterThanOrEqual(300);
      expect(searched).toBeGreaterThanOrEqual(100);
    } finally {
      await swarm.stop();
    }
  }, 30_000);
});

describe('cidx sim --workers, refusals', () => {
  it('refuses what only the one-thread swarm can do, naming the line', async () => {
    const file = join(dir, 'partition.scenario');
    writeFileSync(file, 'seed 1\nat 0s join 4\nat 1s partition 2\n');
    const writes: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => {
      writes.push(String(s));
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await runSimulation(file, { workers: 2, progress: false })).toBe(2);
      expect(await runSimulation(file, { workers: 2, processes: true, progress: false })).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(writes.join('')).toContain(
      `${file}:3: partition needs in-process nodes or --netns (this run: --workers)`,
    );
    expect(writes.join('')).toContain('--workers and --processes: choose one');
  });
});
