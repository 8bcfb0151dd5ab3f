/**
 * npm run bench:wan — searches and creates on a simulated wide-area network: N nodes spread
 * over the world's regions (sim/network/world.json), C communities created, S users searched one
 * at a time and scored against the exact answer; latencies in ms and in round trips (the
 * model's p50 round trip), answer quality, wire cost, and the CPU the process spent per search
 * (one event loop runs every node: CPU time is latency too). `--network none` runs the same
 * workload with nothing added to the wire, for the answers to compare with.
 *
 * Usage: `npm run bench:wan -- --help`. --workers runs the nodes in N worker threads (`cidx sim
 * --workers`): the simulator's CPU, part of every latency on one event loop, then spreads over
 * the cores. By default every search is made by another node, just after the join: each is a
 * node's first search. `--from 0` makes one node make them all, and `--warmup W` has it search W
 * other profiles first (not scored): the searches of a node that has searched before, whose
 * connections are those its earlier searches left open. `--one-hop N` then counts, over the
 * connections the swarm holds, how often N searchers could reach a key's replicas without a new
 * connection (bench/one-hop.ts; in-process swarms only). One configuration per call, in a fresh
 * child process; prints one JSON line and one Markdown table row. BENCH_HEAP_MB sets the child's
 * V8 heap limit (default 12288); BENCH_PROGRESS=1 shows progress.
 */
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenario } from '../sim/interpreter.ts';
import { CAPABILITIES } from '../sim/modes.ts';
import { parseScenario } from '../sim/scenario.ts';
import { MAX_WORKERS, shardedSwarm } from '../sim/shards/swarm.ts';
import { InProcessSwarm } from '../sim/swarm.ts';
import type { SimPeer } from '../sim/swarm-api.ts';
import { benchArgs, wholeNumber } from './args.ts';
import { runChild } from './child.ts';
import { type OneHop, oneHop } from './one-hop.ts';
import { removedAtExit } from './removed-at-exit.ts';

const { values } = benchArgs('bench:wan', {
  options: {
    nodes: { type: 'string', default: '100' },
    communities: { type: 'string', default: '50' },
    searches: { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    network: { type: 'string', default: 'world' },
    access: { type: 'string', default: '10ms' },
    params: { type: 'string', default: '' },
    timing: { type: 'string', default: '' },
    label: { type: 'string', default: '' },
    workers: { type: 'string' },
    from: { type: 'string', default: 'all' },
    warmup: { type: 'string', default: '0' },
    'one-hop': { type: 'string', default: '0' },
    child: { type: 'boolean', default: false },
  },
});
const NODES = wholeNumber('nodes', values.nodes, 1);
const COMMUNITIES = wholeNumber('communities', values.communities);
const SEARCHES = wholeNumber('searches', values.searches);
const SEED = wholeNumber('seed', values.seed);
const NETWORK = values.network;
const ACCESS = values.access;
const PARAMS = values.params;
const TIMING = values.timing;
const LABEL = values.label;
const FROM = values.from;
if (!/^(all|random\d*|\d+(-\d+)?)$/.test(FROM)) {
  console.error(`--from: all, a node index (7), a range (0-9) or random[N], not "${FROM}"`);
  process.exit(2);
}
const WARMUP = wholeNumber('warmup', values.warmup);
const ONE_HOP = wholeNumber('one-hop', values['one-hop']);
const WORKERS = values.workers === undefined ? undefined : Number(values.workers);
if (
  WORKERS !== undefined &&
  !(Number.isInteger(WORKERS) && WORKERS >= 0 && WORKERS <= MAX_WORKERS)
) {
  console.error(`--workers: an integer from 0 to ${MAX_WORKERS}`);
  process.exit(2);
}
if (ONE_HOP > 0 && WORKERS !== undefined) {
  console.error('--one-hop reads the nodes of this process: not with --workers');
  process.exit(2);
}

function scenarioText(): string {
  const net =
    NETWORK === 'none'
      ? ''
      : NETWORK === 'world'
        ? `network regions=world access=${ACCESS}`
        : `network ${NETWORK}`;
  return `
seed ${SEED}
index lsh n=20 m=1 seed=wan
${PARAMS === '' ? '' : `params ${PARAMS}`}
timing republish=1h ttl=3h tombstone=6h ${TIMING}
${net}
dataset communities synthetic count=${COMMUNITIES} size=40 topics=10
dataset users perturb communities count=${SEARCHES} keep=0.7 noise=0.1
${WARMUP === 0 ? '' : `dataset warmup synthetic count=${WARMUP} size=30 topics=10`}
at 0s join ${NODES}
at +10s create communities concurrency=4
${WARMUP === 0 ? '' : `at +10s search warmup from=${FROM} concurrency=4 label=warmup`}
at +10s search users exact from=${FROM} label=scored
`;
}

/** bench/one-hop.ts over the live nodes' open connections, as the scored searches left them. */
function oneHopOf(swarm: InProcessSwarm, pairs: number): OneHop | undefined {
  const live = swarm.alive();
  const replicas = live[0]?.node.swarm.params.replicas;
  if (replicas === undefined) return undefined;
  const nodes = live.map((p) => ({
    id: p.node.libp2p.peerId,
    connected: new Set(p.node.libp2p.getConnections().map((c) => c.remotePeer.toString())),
  }));
  const rtt = swarm.network.rttMs?.bind(swarm.network);
  const ms =
    NETWORK === 'none' || rtt === undefined
      ? undefined
      : (a: number, b: number) => rtt(live[a] as SimPeer, live[b] as SimPeer);
  return oneHop(nodes, replicas, pairs, Math.random, undefined, ms);
}

async function child(): Promise<void> {
  const text = scenarioText();
  const file = join(tmpdir(), `bench-wan-${process.pid}.scenario`);
  writeFileSync(file, text);
  removedAtExit(file);
  let searchCpuS = 0;
  let load = 0;
  let hop: OneHop | undefined;
  const report = await runScenario(parseScenario(text, file), {
    file,
    progress: process.env.BENCH_PROGRESS === '1',
    ...(WORKERS === undefined
      ? {}
      : { swarm: { name: 'workers', can: CAPABILITIES.workers, create: shardedSwarm(WORKERS) } }),
    aroundCommand: async (command, run, swarm) => {
      const c0 = process.cpuUsage();
      await run();
      // The last search command is the scored one (after any warm-up).
      if (command !== 'search') return;
      const c = process.cpuUsage(c0);
      searchCpuS = (c.user + c.system) / 1e6;
      load = loadavg()[0] ?? 0;
      const s = swarm();
      if (ONE_HOP > 0 && s instanceof InProcessSwarm) hop = oneHopOf(s, ONE_HOP);
    },
  });
  // The scored searches' own figures where the report has them under their label (the
  // warm-up's searches are not theirs); the run's otherwise (lookup hops, keys dropped).
  const m = new Proxy(report.metrics, {
    get: (all, k: string) => all[`scored.${k}`] ?? all[k],
  });
  const row = {
    label: LABEL,
    nodes: NODES,
    network: NETWORK,
    ...(WORKERS === undefined ? {} : { workers: WORKERS }),
    params: PARAMS,
    timing: TIMING,
    from: FROM,
    warmup: WARMUP,
    rttP50: m['network.rtt_p50_ms'],
    searchP50: m['search.latency_p50_ms'],
    searchP95: m['search.latency_p95_ms'],
    searchRtts50: m['search.rtts_p50'],
    searchRtts95: m['search.rtts_p95'],
    createP50: m['create.latency_p50_ms'],
    createP95: m['create.latency_p95_ms'],
    createRtts50: m['create.rtts_p50'],
    top1: m['search.top1_agreement'],
    precision: m['search.precision'],
    unresolved: m['search.unresolved'],
    failed: m['search.failed'],
    messagesPerSearch: m['messages.per_search'],
    kibPerSearch: (m['bytes.per_search'] ?? 0) / 1024,
    // The profile-carrying queries and the small probes: what reading ahead trades.
    queriesPerSearch: m['messages.per_search.cidx.query'],
    queryKibPerSearch: (m['bytes.per_search.cidx.query'] ?? 0) / 1024,
    probesPerSearch: m['messages.per_search.cidx.probe'],
    lookupHops: m['lookup.hops'],
    keysDropped: m['search.keys_dropped'],
    keysRouted: m['search.keys_routed'],
    cpuMsPerSearch: (1000 * searchCpuS) / SEARCHES,
    joinS: (m['time.join_ms'] ?? 0) / 1000,
    load,
    ...(hop === undefined ? {} : { oneHop: hop }),
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

if (values.child) {
  await child();
  process.exit(0);
}

type Row = Record<string, string | number | undefined>;
const heap = process.env.BENCH_HEAP_MB ?? '12288';
const row = runChild<Row>(
  import.meta.filename,
  ['--child', ...process.argv.slice(2)],
  [`--max-old-space-size=${heap}`],
);
const f = (v: unknown, d = 0) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(d) : '—');
console.log(JSON.stringify(row));
const hop = row.oneHop as unknown as OneHop | undefined;
if (hop !== undefined)
  console.log(
    `one hop (${hop.pairs} searcher-key pairs, ${f(hop.connections, 1)} connections / node): replica connected ${f(100 * hop.direct, 1)} %, through the connected peer closest to the key ${f(100 * hop.viaClosest, 1)} %, either ${f(100 * hop.either, 1)} %; that peer's median rank ${hop.closestConnectedRank}; a greedy walk over open connections reaches a replica within 1/2/3/4 hops: ${hop.withinHops.map((x) => `${f(100 * x, 1)} %`).join(' / ')}${hop.walkMs === undefined ? '' : `; the reached walks' round trips summed: p50 ${f(hop.walkMs.p50)} ms, p90 ${f(hop.walkMs.p90)} ms (the model's median round trip on the connections used: ${f(row.rttP50)} ms)`}`,
  );
console.log(
  '| label | nodes | network | RTT p50 | search p50 / p95 ms | search p50 / p95 RTTs | create p50 / p95 ms | create p50 RTTs | top-1 | precision | msgs / search | KiB / search | queries / probes per search | lookup hops | CPU ms / search | load |',
);
console.log(
  `| ${row.label} | ${row.nodes} | ${row.network} | ${f(row.rttP50)} | ${f(row.searchP50)} / ${f(row.searchP95)} | ${f(row.searchRtts50, 1)} / ${f(row.searchRtts95, 1)} | ${f(row.createP50)} / ${f(row.createP95)} | ${f(row.createRtts50, 1)} | ${f(row.top1, 3)} | ${f(row.precision, 3)} | ${f(row.messagesPerSearch)} | ${f(row.kibPerSearch, 1)} | ${f(row.queriesPerSearch, 1)} / ${f(row.probesPerSearch, 1)} | ${f(row.lookupHops, 2)} | ${f(row.cpuMsPerSearch)} | ${f(row.load, 1)} |`,
);
