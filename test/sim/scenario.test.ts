import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../sim/scenario.ts';
import type { NetworkSpec } from '../../sim/swarm-api.ts';

const ok = `
# the contract's example, plus extensions
seed 7
index lsh n=20 m=1 seed=swarm-1          # or: index attribute
params k=5 l=3 replicas=3
timing republish=30s ttl=2m tombstone=4m
dataset communities data/c.jsonl offset=10 limit=300
dataset users synthetic count=20 size=30 topics=3 matrix=yes
dataset lookalikes perturb communities count=50 keep=0.7 noise=0.1
at 0s join 200 every 20ms
at +5s create communities concurrency=3
at +0s search users exact k=3 label=first concurrency=4
at +0s update communities new.jsonl
at +0s update communities perturb keep=0.9
at +0s dissolve communities 10%
at +0s kill 30%
at +0s kill 5 which=holders
at +0s leave 10%
at +0s wait republish
at +0s wait 1.5s
at 10s every 5s times 3 search users from=0-9
at +0s churn exponential mean=60s downtime=10s for 10m
at +0s churn pareto shape=1.5 scale=30s for 1m
at +0s churn rate=10% per=1m for 10m
at +0s check findable sample=20
at +0s create users from=random3 limit=2
expect search.top1_agreement >= 0.9
expect load.max_over_mean < 4.5
report
`;

describe('scenario parser', () => {
  it('parses every command of the contract and the extensions', () => {
    const s = parseScenario(ok, 'ok.scenario');
    expect(s.map((x) => x.kind)).toEqual([
      'seed',
      'index',
      'params',
      'timing',
      'dataset',
      'dataset',
      'dataset',
      ...Array(17).fill('at'),
      'expect',
      'expect',
      'report',
    ]);
    expect(s[1]).toMatchObject({ line: 4, index: { mode: 'lsh', n: 20, m: 1, seed: 'swarm-1' } });
    expect(s[3]).toMatchObject({ values: { republish: 30_000, ttl: 120_000, tombstone: 240_000 } });
    expect(s[4]).toMatchObject({
      name: 'communities',
      source: { kind: 'file', path: 'data/c.jsonl' },
      offset: 10,
      limit: 300,
    });
    expect(s[7]).toMatchObject({
      relative: false,
      ms: 0,
      command: { kind: 'join', count: 200, everyMs: 20 },
    });
    expect(s[8]).toMatchObject({
      relative: true,
      ms: 5000,
      command: { kind: 'create', dataset: 'communities', concurrency: 3 },
    });
    expect(s[9]).toMatchObject({
      command: { kind: 'search', exact: true, k: 3, label: 'first', concurrency: 4 },
    });
    expect(s[12]).toMatchObject({
      command: { kind: 'dissolve', amount: { kind: 'percent', p: 0.1 } },
    });
    expect(s[14]).toMatchObject({
      command: { kind: 'kill', amount: { kind: 'count', n: 5 }, which: 'holders' },
    });
    expect(s[17]).toMatchObject({ command: { kind: 'wait', ms: 1500 } });
    expect(s[18]).toMatchObject({
      ms: 10_000,
      repeat: { everyMs: 5000, times: 3 },
      command: { from: { kind: 'range', from: 0, to: 9 } },
    });
    expect(s[19]).toMatchObject({
      command: {
        kind: 'churn',
        model: { kind: 'exponential', meanMs: 60_000, downtimeMs: 10_000 },
        forMs: 600_000,
      },
    });
    expect(s[21]).toMatchObject({
      command: { kind: 'churn', model: { kind: 'rate', fraction: 0.1, perMs: 60_000 } },
    });
    expect(s[23]).toMatchObject({
      command: { kind: 'create', from: { kind: 'random', count: 3 }, limit: 2 },
    });
    expect(s[24]).toMatchObject({
      kind: 'expect',
      metric: 'search.top1_agreement',
      op: '>=',
      value: 0.9,
    });
  });

  it('parses churn with spared nodes and searches, and check gone', () => {
    const s = parseScenario(
      'dataset u synthetic count=2 size=3\nat 0s churn rate=10% per=4s spare=0-9 search=u label=during for 40s\nat +0s check gone',
      'x.scenario',
    );
    expect(s[1]).toMatchObject({
      command: {
        kind: 'churn',
        model: {
          kind: 'rate',
          fraction: 0.1,
          perMs: 4000,
          search: { dataset: 'u', label: 'during' },
        },
        forMs: 40_000,
        spare: { kind: 'range', from: 0, to: 9 },
      },
    });
    expect(s[2]).toMatchObject({ command: { kind: 'check-gone' } });
  });

  it('takes the reachability mode among the params, from the settings table', () => {
    const s = parseScenario('params reachability=public k=5', 'x.scenario');
    expect(s[0]).toMatchObject({ kind: 'params', values: { reachability: 'public', k: 5 } });
  });

  it('parses the network model, partitions and heal', () => {
    const dir = join(import.meta.dirname, 'fixtures');
    const s = parseScenario(
      [
        'network latency=50ms jitter=10ms bandwidth=10mbit',
        'network regions=world access=10ms bandwidth=2mbit',
        'network regions=two-regions.json',
        'at 0s partition 30% for 1m',
        'at +0s partition 4',
        'at +0s heal',
      ].join('\n'),
      join(dir, 'net.scenario'),
    );
    expect(s[0]).toMatchObject({ spec: { latencyMs: 50, jitterMs: 10, bandwidthBps: 10e6 } });
    expect(s[1]).toMatchObject({
      spec: { regions: { name: 'world' }, accessMs: 10, bandwidthBps: 2e6 },
    });
    const regions = (s[1] as unknown as { spec: NetworkSpec }).spec.regions?.table.regions;
    expect(regions?.map((r) => r.id)).toContain('europe');
    // A region file is read, relative to the scenario, while the line is parsed.
    const own = (s[2] as unknown as { spec: NetworkSpec }).spec.regions;
    expect(own?.table.regions.map((r) => r.id)).toEqual(['here', 'there']);
    expect(own?.table.rttMs(0, 1)).toBe(80);
    expect(s[3]).toMatchObject({
      command: { kind: 'partition', amount: { kind: 'percent', p: 0.3 }, forMs: 60_000 },
    });
    expect(s[4]).toMatchObject({ command: { kind: 'partition', amount: { kind: 'count', n: 4 } } });
    expect((s[4] as unknown as { command: { forMs?: number } }).command.forMs).toBeUndefined();
    expect(s[5]).toMatchObject({ command: { kind: 'heal' } });
  });

  it.each([
    ['network', 1, 'network needs latency=<d> or regions=world|<file.json>'],
    ['seed 1\nnetwork latency=fast', 2, 'latency= must be a duration'],
    ['network latency=10ms bandwidth=lots', 1, 'bandwidth= must be a rate such as 100kbit'],
    ['network latency=10ms bandwidth=0mbit', 1, 'more than 0 bits per second'],
    ['network regions=world latency=10ms', 1, 'latency= and jitter= go without it'],
    ['network latency=10ms access=5ms', 1, 'access= goes with regions='],
    ['network regions=no-such-file.json', 1, 'regions=no-such-file.json: '],
    ['network regions=world colour=red', 1, 'unknown option "colour"'],
    ['\n\nnetwork regions=bad-regions.json', 3, 'rtt_ms.here.there: missing'],
    ['at 0s partition', 1, 'expected a count or a percentage'],
    ['at 0s partition 30% for', 1, 'expected a duration after "for"'],
    ['at 0s partition 30% for 0s', 1, '"for" must be longer than 0'],
    ['at 0s partition 130%', 1, 'cannot exceed 100%'],
    ['at 0s partition 30% during 1m', 1, 'unexpected "during 1m"'],
    ['seed 1\nat 0s heal now', 2, 'unexpected "now"'],
  ])('rejects the network line %j at line %i', (text, line, message) => {
    const file = join(import.meta.dirname, 'fixtures', 'bad.scenario');
    let err: unknown;
    try {
      parseScenario(text, file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).message).toContain(`bad.scenario:${line}: `);
    expect((err as Error).message).toContain(message);
  });

  it('parses freeze, partition and heal', () => {
    const s = parseScenario(
      'at 0s freeze 30% for 10s\nat +0s freeze 2 which=holders\nat +0s partition 50% for 1m\nat +0s heal',
      'x.scenario',
    );
    expect(s.map((x) => x.command)).toEqual([
      { kind: 'freeze', amount: { kind: 'percent', p: 0.3 }, which: 'random', forMs: 10_000 },
      { kind: 'freeze', amount: { kind: 'count', n: 2 }, which: 'holders' },
      { kind: 'partition', amount: { kind: 'percent', p: 0.5 }, forMs: 60_000 },
      { kind: 'heal' },
    ]);
  });

  it.each([
    ['sede 7', 1, 'unknown statement "sede"'],
    ['at 0s freeze', 1, 'expected a count or a percentage'],
    ['at 0s freeze 10% for', 1, 'expected a duration after "for"'],
    ['at 0s freeze 10% during 1s', 1, 'unexpected "during 1s"'],
    ['at 0s freeze 1 which=busy', 1, 'which= must be random or holders'],
    ['at 0s partition 50% for 0s', 1, '"for" must be longer than 0'],
    ['at 0s heal now', 1, 'unexpected "now"'],
    ['at 0s churn rate=10% search=nobody for 1m', 1, 'unknown dataset "nobody"'],
    ['at 0s churn rate=10% label=x for 1m', 1, 'label= needs search=<dataset>'],
    ['at 0s check lost', 1, 'unknown check "lost"'],
    ['index lsh n=20 m=1', 1, 'index lsh needs n=, m= and seed='],
    ['index lsh n=20 m=1 seed=x colour=red', 1, 'unknown option "colour"'],
    ['at 5 join 3', 1, 'time must be a duration'],
    ['at 0s join', 1, 'expected the number of nodes'],
    ['at 0s create communities', 1, 'unknown dataset "communities"'],
    ['dataset c x.jsonl\nat 0s search c exact k=zero', 2, 'k= must be a whole number'],
    ['dataset c x.jsonl\nat 0s dissolve c 120%', 2, 'cannot exceed 100%'],
    ['at 0s kill 10% which=nice', 1, 'which= must be random or holders'],
    ['at 0s churn weibull k=2 for 1m', 1, 'unknown churn model "weibull"'],
    ['at 0s churn exponential mean=1m', 1, 'expected "for <duration>"'],
    ['at 0s every 1s join 2', 1, 'expected "times <n>"'],
    ['expect search.top1_agreement ~ 0.9', 1, 'operator must be one of'],
    ['expect x >= lots', 1, 'the expected value must be a number'],
    ['report now', 1, 'unexpected "now"'],
    ['dataset c synthetic count=5', 1, 'dataset synthetic needs count= and size='],
    ['seed 1\n\n# fine\nat 0s join 2 every 1s extra', 4, 'unexpected "extra"'],
    // Settings keys come from the node's settings table, with its ranges.
    ['params k=0', 1, 'k= must be an integer in [1, 1000], not "0"'],
    ['params replicas=21', 1, 'replicas= must be an integer in [1, 20]'],
    ['timing ttl=forever', 1, 'ttl= must be a duration'],
    ['index lsh n=0 m=1 seed=x', 1, 'n= must be an integer in [1, 1024]'],
    ['index lsh n=20 m=1 seed=x bits=12', 1, 'bits= must be one of 8, 16, 32, 64'],
    ['params brief=1', 1, 'unknown option "brief"'],
    ['params reachability=sometimes', 1, 'reachability= must be one of auto, public, private'],
    ['params k=5 k=6', 1, 'option "k" given twice'],
  ])('rejects %j at line %i', (text, line, message) => {
    let err: unknown;
    try {
      parseScenario(text, 'bad.scenario');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).message).toContain(`bad.scenario:${line}: `);
    expect((err as Error).message).toContain(message);
  });
});
