/**
 * What a run reports of its network model: the `network.…` metrics (round trips the model
 * produced, what partitions cut), operation latencies in round trips (`search.rtts_p50`: the
 * search's p50 latency over the p50 round trip), and the model's description for the report
 * (regions used and their nodes, the round trips between them, access delay, bandwidth).
 */
import type { PartitionBook } from './partitions.ts';
import type { NetworkReport } from './report/types.ts';
import type { SimSwarm, SwarmNetwork } from './swarm-api.ts';

const LATENCY = /^((?:[^.]+\.)*?)(search|create|update)\.latency_(p50|p95)_ms$/;

/** Adds the network's metrics to `m`, and each latency percentile in round trips. */
export function addNetworkMetrics(net: SwarmNetwork, m: Record<string, number>): void {
  const s = net.stats();
  m['network.connections'] = s.connections;
  m['network.bytes'] = s.bytes;
  if (s.connections > 0) {
    m['network.rtt_p50_ms'] = s.rttP50Ms;
    m['network.rtt_p95_ms'] = s.rttP95Ms;
  }
  m['network.dropped_bytes'] = s.droppedBytes;
  m['network.closed_by_partition'] = s.closedByPartition;
  m['network.dials_dropped'] = s.dialsDropped;
  if (!(s.rttP50Ms > 0)) return;
  for (const [name, v] of Object.entries(m)) {
    const match = LATENCY.exec(name);
    if (match !== null) m[`${match[1] ?? ''}${match[2]}.rtts_${match[3]}`] = v / s.rttP50Ms;
  }
}

/** One line saying what the model adds to the wire. */
function describeNetwork(net: SwarmNetwork): string {
  const { spec } = net;
  const parts: string[] = [];
  if (spec.regions !== undefined) {
    const n = spec.regions.table.regions.length;
    parts.push(`regions ${spec.regions.name} (${n} regions): delay half the regions' round trip`);
    parts.push(`access ${spec.accessMs ?? 0} ms at each end`);
  } else if (spec.latencyMs !== undefined) {
    parts.push(`one-way delay ${spec.latencyMs} ms (round trip ${2 * spec.latencyMs} ms)`);
    if (spec.jitterMs) parts.push(`± ${spec.jitterMs} ms jitter per link`);
  } else parts.push('no delay (the network model adds nothing)');
  parts.push(
    spec.bandwidthBps === undefined
      ? 'uplink unlimited'
      : `uplink ${formatRate(spec.bandwidthBps)} per node`,
  );
  return parts.join(', ');
}

function formatRate(bps: number): string {
  for (const [unit, f] of [
    ['gbit/s', 1e9],
    ['mbit/s', 1e6],
    ['kbit/s', 1e3],
  ] as const)
    if (bps >= f) return `${+(bps / f).toFixed(3)} ${unit}`;
  return `${bps} bit/s`;
}

/** The report's account of the network: description, regions and their nodes, statistics. */
export function networkReport(
  swarm: SimSwarm,
  partitions: PartitionBook,
): NetworkReport | undefined {
  const net = swarm.network;
  if (net === undefined) return undefined;
  const out: NetworkReport = {
    description: describeNetwork(net),
    stats: net.stats(),
    partitions: partitions.all.map((p) => ({
      n: p.n,
      began: p.began,
      ended: p.ended,
      minority: p.nodes.minority,
      majority: p.nodes.majority,
    })),
  };
  const table = net.spec.regions?.table;
  if (table === undefined) return out;
  const joined = new Map<string, number>();
  const alive = new Map<string, number>();
  for (const p of swarm.peers) {
    const r = net.regionOf(p);
    if (r === undefined) continue;
    joined.set(r, (joined.get(r) ?? 0) + 1);
    if (p.alive) alive.set(r, (alive.get(r) ?? 0) + 1);
  }
  const used = table.regions
    .map((r, i) => ({ ...r, i }))
    .filter((r) => (joined.get(r.id) ?? 0) > 0);
  out.regions = used.map((r) => ({
    id: r.id,
    name: r.name,
    joined: joined.get(r.id) ?? 0,
    alive: alive.get(r.id) ?? 0,
  }));
  out.rttMs = used.map((a) => used.map((b) => table.rttMs(a.i, b.i)));
  return out;
}
