import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSimulation } from '../../sim/cli.ts';
import { runScenario } from '../../sim/interpreter.ts';
import { CAPABILITIES, type SwarmMode } from '../../sim/modes.ts';
import { parseScenario, ScenarioError } from '../../sim/scenario.ts';
import type { SimSwarm } from '../../sim/swarm-api.ts';
import type { CidxNode } from '../../src/node/node.ts';

const dir = mkdtempSync(join(tmpdir(), 'cidx-sim-'));

function scenario(name: string, text: string): string {
  const file = join(dir, `${name}.scenario`);
  writeFileSync(file, text);
  return file;
}

describe('small simulations (real nodes, memory transport)', () => {
  it('measures answer quality against ground truth, traffic on the wire, load and notifications', async () => {
    const text = `
seed 3
index lsh n=20 m=1 seed=sim-test
params k=5 l=3 replicas=3 routeHops=0
dataset communities synthetic count=15 size=30 topics=5
dataset users perturb communities count=15 keep=0.7 noise=0.1
at 0s join 15
at +0s create communities concurrency=4
at +0s search users exact
expect communities.created == 15
expect search.top1_agreement >= 0.9
expect search.unresolved == 0
expect search.precision > 0.5
expect search.mean_rel_error < 0.1
expect messages.per_search > 40
expect bytes.per_search > 5000
expect traffic.profiles_dht.messages > 0
expect traffic.cidx.bytes > 0
expect index.entries >= 15
expect load.loaded_nodes >= 5
expect notifications.delivered > 0
`;
    const file = scenario('quality', text);
    const report = await runScenario(parseScenario(text, file), { file });
    const failed = report.expects.filter((e) => !e.pass);
    expect(failed).toEqual([]);
    const m = report.metrics;
    // LSH n = 20: every search makes about 20 DHT lookups of at least one query each, plus its
    // own request and reply per key: far more than 20 messages, and both DHTs are metered.
    // (Without routing: routed reads make no lookup; test/sim/network/swarm.test.ts meters them.)
    expect(m['lookup.count']).toBeGreaterThan(15 * 20);
    expect(m['lookup.hops']).toBeGreaterThanOrEqual(1);
    expect(m['index.entries']).toBeLessThanOrEqual(15 * 20 * 3);
    expect(report.series.protocols['/cidx/profiles/kad/1.0.0']?.bytes).toBeGreaterThan(0);
    expect(report.series.searchLatencyMs).toHaveLength(15);
    // The same traffic by message type: a search's lookups and its own requests, each answered,
    // and each protocol's types adding up to its figure.
    for (const k of [
      'cidx.query',
      'cidx.contacts_get',
      'profiles_dht.find_node',
      'addresses_dht.find_node',
    ])
      for (const t of [k, `${k}_response`])
        expect(m[`bytes.per_search.${t}`], t).toBeGreaterThan(0);
    for (const p of ['cidx', 'profiles_dht', 'addresses_dht'])
      for (const unit of ['bytes', 'messages']) {
        const types = Object.keys(m).filter((k) => k.startsWith(`${unit}.per_search.${p}.`));
        const sum = types.reduce((s, k) => s + (m[k] ?? 0), 0);
        expect(sum, `${unit} ${p}`).toBeCloseTo(m[`${unit}.per_search.${p}`] ?? -1, 6);
      }
  }, 180_000);

  it('meters updates on the wire, under a label too', async () => {
    const text = `
seed 5
index lsh n=10 m=1 seed=update-test
dataset communities synthetic count=8 size=30 topics=4
at 0s join 10
at +0s create communities
at +0s update communities perturb keep=0.9 label=changed
expect changed.update.count == 8
expect update.failed == 0
expect messages.per_update > 10
expect bytes.per_update > 2000
`;
    const file = scenario('update', text);
    const report = await runScenario(parseScenario(text, file), { file });
    expect(report.expects.filter((e) => !e.pass)).toEqual([]);
    expect(report.metrics['update.latency_p50_ms']).toBeGreaterThan(0);
  }, 120_000);

  it('wraps every command in aroundCommand; no stack traces while it runs, unless asked', async () => {
    const text = `
seed 6
dataset communities synthetic count=3 size=20 topics=2
at 0s join 4
at +0s create communities
at +0s search communities exact
`;
    const file = scenario('around', text);
    const seen: string[] = [];
    const limits: number[] = [];
    const before = Error.stackTraceLimit;
    const report = await runScenario(parseScenario(text, file), {
      file,
      aroundCommand: async (command, run) => {
        limits.push(Error.stackTraceLimit);
        seen.push(`${command}:before`);
        await run();
        seen.push(`${command}:after`);
      },
    });
    expect(seen).toEqual([
      'join:before',
      'join:after',
      'create:before',
      'create:after',
      'search:before',
      'search:after',
    ]);
    // The commands really ran inside the wrapper.
    expect(report.metrics['communities.created']).toBe(3);
    expect(report.metrics['search.count']).toBe(3);
    // Errors carry no stacks while the swarm runs, and the process gets its setting back.
    expect(limits).toEqual([0, 0, 0]);
    expect(Error.stackTraceLimit).toBe(before);
    await runScenario(parseScenario('at 0s join 2\n', file), {
      file,
      stackTraces: true,
      aroundCommand: async (_command, run) => {
        limits.push(Error.stackTraceLimit);
        await run();
      },
    });
    expect(limits.at(-1)).toBe(before);
  }, 60_000);

  it('keeps every live community findable after 30% of the nodes crash and owners republish', async () => {
    const text = `
seed 4
index lsh n=10 m=1 seed=churn-test
dataset communities synthetic count=12 size=30 topics=4
at 0s join 20
at +0s create communities from=0-9
at +0s kill 30% which=holders
at +0s wait republish
at +0s check findable
expect communities.findable == 1
expect nodes.alive == 14
`;
    const file = scenario('churn', text);
    const report = await runScenario(parseScenario(text, file), { file });
    expect(report.expects.filter((e) => !e.pass)).toEqual([]);
  }, 180_000);

  it('republishes the tombstones of an owner whose every community is dissolved', async () => {
    const text = `
seed 5
index lsh n=6 m=1 seed=tombstones-test
dataset communities synthetic count=2 size=20 topics=2
at 0s join 8
at +0s create communities from=0-1
at +0s dissolve communities 100%
at +0s republish
`;
    // The tombstones (`remove`) the nodes sent during the republish round.
    const removes = (swarm: SimSwarm | undefined) =>
      (swarm?.peers ?? []).reduce(
        (sum, p) => sum + ((p as { node?: CidxNode }).node?.traffic()['out:remove']?.messages ?? 0),
        0,
      );
    let sent = 0;
    const file = scenario('tombstones', text);
    await runScenario(parseScenario(text, file), {
      file,
      aroundCommand: async (command, run, swarm) => {
        const before = removes(swarm());
        await run();
        if (command === 'republish') sent = removes(swarm()) - before;
      },
    });
    // The two owners own nothing live: their round still sends both tombstones again, under
    // each community's keys and its AddressesDHT key.
    expect(sent).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('runs on a network model: round trips in the latencies, searches counted on each side of a partition', async () => {
    const text = `
seed 8
index lsh n=10 m=1 seed=partition-test
network latency=20ms
dataset communities synthetic count=6 size=30 topics=3
dataset users perturb communities count=6 keep=0.8
at 0s join 10
at +0s create communities
at +0s search users exact label=before
at +0s partition 50%
at +0s search users label=during
at +0s heal
at +0s republish
at +0s search users exact label=after
expect network.rtt_p50_ms == 40
expect partition.count == 1
expect partition.1.nodes_minority == 5
expect partition.1.nodes_majority == 5
expect before.search.top1_agreement == 1
expect after.search.top1_agreement == 1
`;
    const file = scenario('partition', text);
    const report = await runScenario(parseScenario(text, file), { file });
    expect(report.expects.filter((e) => !e.pass)).toEqual([]);
    const m = report.metrics;
    // Every search of the `during` command ran while the partition lasted, from one side or
    // the other.
    expect(
      (m['partition.1.searches_minority'] ?? 0) + (m['partition.1.searches_majority'] ?? 0),
    ).toBe(6);
    expect(m['partition.1.duration_ms']).toBeGreaterThan(0);
    expect(m['network.closed_by_partition']).toBeGreaterThan(0);
    // Latency in round trips: a routed search is at least one (its keys' queries cross the
    // network, answered by replicas other than the searcher for most keys; a community's
    // entry may be the searcher's own). Looked up, at least two: test/sim/network/swarm.test.ts.
    expect(m['before.search.rtts_p50']).toBeGreaterThanOrEqual(1);
    expect(m['create.rtts_p50']).toBeGreaterThanOrEqual(2);
    expect(report.network?.description).toContain('one-way delay 20 ms');
    expect(report.network?.partitions).toHaveLength(1);
    expect(report.series.latencyOverTime.filter((p) => p.kind === 'search')).toHaveLength(18);
  }, 180_000);

  it('exits 1 when an expect fails and writes the three reports', async () => {
    const file = scenario(
      'failing',
      `
seed 5
dataset c synthetic count=3 size=10
at 0s join 3
at +0s create c
expect communities.created == 3
expect communities.created > 3
expect no.such.metric > 0
`,
    );
    const out = join(dir, 'out-failing');
    const printed: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      expect(await runSimulation(file, { out, progress: false })).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(printed.join('')).toContain(
      'failing.scenario:7: expect communities.created > 3 (actual 3)',
    );
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.expects.map((e: { pass: boolean }) => e.pass)).toEqual([true, false, false]);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('FAIL');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<svg');
  }, 120_000);

  it('exits 2 with file:line on a scenario error, before or while running', async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    try {
      const bad = scenario('bad', 'seed 1\nat 0s jion 3\n');
      expect(await runSimulation(bad, { progress: false })).toBe(2);
      const missing = scenario('missing', 'seed 1\ndataset c no-such-file.jsonl\n');
      expect(await runSimulation(missing, { progress: false, out: join(dir, 'out-missing') })).toBe(
        2,
      );
      // Each timing key is in range, but together they break a rule: found at the first join,
      // before any node starts, naming the setting and its scenario key.
      const rules = scenario('rules', 'timing republish=1m\ntiming ttl=1m\nat 0s join 3\n');
      expect(await runSimulation(rules, { progress: false, out: join(dir, 'out-rules') })).toBe(2);
      const late = scenario('late', 'at 0s join 2\nnetwork latency=10ms\n');
      expect(await runSimulation(late, { progress: false, out: join(dir, 'out-late') })).toBe(2);
      const lonely = scenario('lonely', 'at 0s join 1\nat +0s partition 50%\n');
      expect(await runSimulation(lonely, { progress: false, out: join(dir, 'out-lonely') })).toBe(
        2,
      );
    } finally {
      spy.mockRestore();
    }
    expect(errors.join('')).toMatch(/bad\.scenario:2: unknown command "jion"/);
    expect(errors.join('')).toMatch(/missing\.scenario:2: cannot read .*no-such-file\.jsonl/);
    expect(errors.join('')).toContain(
      'rules.scenario:3: settings: timing.recordTtlMs: must exceed republishIntervalMs',
    );
    expect(errors.join('')).toContain('(timing ttl=)');
    expect(errors.join('')).toContain('late.scenario:2: network must come before the first join');
    expect(errors.join('')).toContain(
      'lonely.scenario:2: a partition needs nodes on both sides: 1 of 1 live nodes chosen',
    );
  });
});

describe('what a mode can run', () => {
  /** A mode whose swarm must never be built: the check comes before anything runs. */
  const untouched = (name: SwarmMode['name']): SwarmMode => ({
    name,
    can: CAPABILITIES[name],
    create: () => {
      throw new Error('a swarm was started');
    },
  });

  it.each([
    [
      'processes',
      'network latency=50ms',
      'network needs in-process nodes or --workers (this run: --processes)',
    ],
    [
      'processes',
      'at 0s partition 50% for 1m',
      'partition needs in-process nodes or --netns (this run: --processes)',
    ],
    ['processes', 'at 0s heal', 'heal needs in-process nodes or --netns (this run: --processes)'],
    [
      'endpoints',
      'at 0s join 3',
      'join needs in-process nodes or --workers or --processes or --netns (this run: --endpoints)',
    ],
    [
      'endpoints',
      'at 0s kill 1',
      'kill needs in-process nodes or --workers or --processes or --netns',
    ],
    ['endpoints', 'at 0s leave 1', 'leave needs'],
    ['endpoints', 'at 0s churn rate=10% per=1s for 2s', 'churn needs'],
    [
      'endpoints',
      'at 0s freeze 1 for 1s',
      'freeze needs in-process nodes or --processes or --netns (this run: --endpoints)',
    ],
  ] as const)('%s refuses %j before the run, naming its line', async (mode, line, message) => {
    const file = scenario(`refused-${mode}`, `seed 1\n\n${line}\n`);
    const run = runScenario(parseScenario(`seed 1\n\n${line}\n`, file), {
      file,
      swarm: untouched(mode),
    });
    await expect(run).rejects.toThrow(ScenarioError);
    await expect(run).rejects.toThrow(`${file}:3: ${message}`);
  });
});
