/**
 * A run's metrics and report, as they stand now: the operations' statistics, what the swarm's
 * nodes hold and measured, the world's communities, the gauges commands set, memory. Metric
 * names are listed in scenarios/README.md; a new one is added where its data is (a line here,
 * or a gauge set by its command).
 */
import { cpus } from 'node:os';
import { shortProtocolName } from '../src/net/protocols.ts';
import type { Run } from './interpreter.ts';
import { gini, type OpStats } from './metrics.ts';
import { addNetworkMetrics, networkReport } from './network-report.ts';
import type { SimReport } from './report/types.ts';
import type { PeerInfo } from './swarm-api.ts';

export async function collectMetrics(run: Run): Promise<Record<string, number>> {
  const m: Record<string, number> = run.ops.metrics();
  const swarm = run.swarm;
  const held = await holdings(run);
  const entries = held.map((l) => l.descriptors);
  const total = entries.reduce((s, v) => s + v, 0);
  m['nodes.alive'] = swarm?.alive().length ?? 0;
  m['nodes.joined'] = swarm?.peers.length ?? 0;
  m['index.entries'] = total;
  m['index.keys'] = held.reduce((s, l) => s + l.keys, 0);
  m['index.bytes'] = held.reduce((s, l) => s + l.bytes, 0);
  m['index.bytes_max_node'] = Math.max(0, ...held.map((l) => l.bytes));
  m['load.loaded_nodes'] = entries.filter((e) => e > 0).length;
  m['load.mean'] = held.length === 0 ? 0 : total / held.length;
  m['load.max_over_mean'] = total === 0 ? 0 : Math.max(...entries) / (total / held.length);
  m['load.gini'] = gini(entries);
  const communities = run.world.all();
  m['communities.created'] = communities.length;
  m['communities.alive'] = communities.filter((c) => run.world.isLive(c.id)).length;
  for (const [name, v] of run.gauges) m[name] = v;
  const counters = await swarm?.counters();
  m['notifications.delivered'] = counters?.notifications ?? 0;
  if (counters !== undefined && counters.searches.count > 0) {
    // How a search's requests spread over peers: what one request per peer would save.
    const s = counters.searches;
    m['search.requests'] = s.requests / s.count;
    m['search.request_peers'] = s.peers / s.count;
    m['search.repeat_queries'] = s.repeatQueries / s.count;
    m['search.keys_dropped'] = s.keysDropped / s.count;
    m['search.keys_routed'] = s.keysRouted / s.count;
  }
  if (counters !== undefined && counters.lookups.count > 0) {
    const l = counters.lookups;
    m['lookup.count'] = l.count;
    m['lookup.hops'] = l.hops / l.count;
    m['lookup.messages'] = l.messages / l.count;
    m['lookup.ms'] = l.ms / l.count;
  }
  if (swarm) {
    let bytes = 0;
    let messages = 0;
    for (const [proto, t] of Object.entries(await swarm.traffic())) {
      const short = shortProtocolName(proto);
      m[`traffic.${short}.bytes`] = t.bytes;
      m[`traffic.${short}.messages`] = t.messages;
      m[`traffic.${short}.streams`] = t.streams;
      bytes += t.bytes;
      messages += t.messages;
    }
    m['traffic.total.bytes'] = bytes;
    m['traffic.total.messages'] = messages;
  }
  if (swarm?.network) addNetworkMetrics(swarm.network, m);
  Object.assign(m, run.partitions.metrics());
  m['time.join_ms'] = run.joinMs;
  m['memory.rss_mb'] = run.memory.sample();
  m['memory.peak_rss_mb'] = run.memory.peak();
  // Nodes that are processes of their own: their memory, not the simulator's.
  const procs = await swarm?.processes?.();
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  if (procs !== undefined && procs.rssMb.length > 0) {
    m['memory.node_rss_mb'] = mean(procs.rssMb);
    m['memory.node_rss_max_mb'] = Math.max(...procs.rssMb);
    m['memory.node_anon_mb'] = mean(procs.anonMb);
  }
  if (procs !== undefined && procs.startMs.length > 0) {
    m['time.node_start_ms'] = mean(procs.startMs);
    m['time.node_start_max_ms'] = Math.max(...procs.startMs);
  }
  return m;
}

/**
 * What each live node holds, in join order; a node that does not answer (a process that hangs)
 * is left out rather than stopping the report.
 */
async function holdings(run: Run): Promise<PeerInfo[]> {
  const all = await Promise.allSettled((run.swarm?.alive() ?? []).map((p) => p.info()));
  return all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
}

export async function buildReport(run: Run): Promise<SimReport> {
  const swarm = run.swarm;
  const metrics = await collectMetrics(run);
  const series = swarm?.aliveSeries() ?? [];
  const network = swarm === undefined ? undefined : networkReport(swarm, run.partitions);
  return {
    scenario: {
      file: run.opts.file,
      seed: run.seed,
      startedAt: new Date(run.startedAt).toISOString(),
      durationMs: Date.now() - run.startedAt,
      machine: `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}`,
      nodesPeak: Math.max(0, ...series.map((a) => a.alive)),
      mode: run.mode.name,
      ...(run.interrupted ? { interrupted: true } : {}),
    },
    metrics,
    ...(network ? { network } : {}),
    expects: run.expects,
    // By start: what ran beside other commands (the end of a `freeze … for`) is added when done.
    timeline: [...run.timeline].sort((a, b) => a.t - b.t),
    series: {
      nodes: series,
      rssMb: run.memory.samples,
      searchLatencyMs: run.ops.all.search.latencies,
      createLatencyMs: run.ops.all.create.latencies,
      latencyOverTime: [
        ...overTime(run.ops.all.search, 'search'),
        ...overTime(run.ops.all.create, 'create'),
      ],
      loadPerNode: (await holdings(run)).map((h) => h.descriptors),
      protocols: (await swarm?.traffic()) ?? {},
    },
  };
}

function overTime(s: OpStats, kind: 'search' | 'create') {
  return s.latencies.map((ms, i) => ({ t: s.began[i] ?? 0, ms, kind }));
}
