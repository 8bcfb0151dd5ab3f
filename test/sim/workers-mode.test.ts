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

const dir = mkdtempSync(join(tmpdir(), 'cidx-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = `
seed 5
index lsh n=10 m=1 seed=workers
params k=3 replicas=3
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

async function run(workers: number | undefined): Promise<{ report: SimReport; cross: number }> {
  const file = join(dir, `w${workers ?? 0}.scenario`);
  writeFileSync(file, TEXT);
  let swarm: ShardedSwarm | undefined;
  let cross = 0;
  const report = await runScenario(parseScenario(TEXT, file), {
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
    const one = await run(undefined);
    const three = await run(3);
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
        runId: 'bad',
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

describe('cidx sim --workers, refusals', () => {
  it('refuses what only the one-thread swarm can do, naming the line', async () => {
    const file = join(dir, 'network.scenario');
    writeFileSync(file, 'seed 1\nnetwork latency=40ms\nat 0s join 4\n');
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
      `${file}:2: network needs in-process nodes (this run: --workers)`,
    );
    expect(writes.join('')).toContain('--workers and --processes: choose one');
  });
});
