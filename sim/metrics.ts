/** Accumulators of what a run measures, and the small statistics the report needs. */

import type { TrafficCounters } from '../src/net/meter.ts';
import { shortProtocolName } from '../src/net/protocols.ts';
import type { StreamTraffic } from '../src/net/wire-meter.ts';
import type { SearchScore } from './ground-truth.ts';

export class OpStats {
  count = 0;
  failed = 0;
  latencies: number[] = [];
  /** When each operation began (ms since the run started), in the order of `latencies`. */
  began: number[] = [];
  messages = 0;
  bytes = 0;
  /** The same wire traffic split by protocol (short names: cidx, profiles_dht, …). */
  byProtocol = new Map<string, TrafficCounters>();
  /** Split further by message type where the meter knows types: `profiles_dht.find_node`, … */
  byType = new Map<string, TrafficCounters>();
  // search only
  scored = 0;
  unresolved = 0;
  top1 = 0;
  precisionSum = 0;
  precisionN = 0;
  relErrSum = 0;
  relErrN = 0;

  /** One operation, begun at `began` (ms since the run started), finished after `ms`. */
  done(ms: number, began: number): void {
    this.count++;
    this.latencies.push(ms);
    this.began.push(began);
  }

  addScore(s: SearchScore): void {
    if (!s.answerable) return;
    this.scored++;
    if (s.unresolved) this.unresolved++;
    if (s.top1) this.top1++;
    if (s.precision !== null) {
      this.precisionSum += s.precision;
      this.precisionN++;
    }
    if (s.relError !== null) {
      this.relErrSum += s.relError;
      this.relErrN++;
    }
  }
}

/**
 * Nearest-rank percentile of values sorted ascending: the ⌈p·n/100⌉-th smallest value, i.e. the
 * smallest value with at least p % of the values at or below it (p50 of 1..100 is 50, p99 is 99,
 * p100 the maximum). Always one of the values, never an interpolation; undefined for none.
 */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  // p·n before the division keeps integer ranks exact ((7 / 100) · 100 is 7.000…01).
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p * sorted.length) / 100)));
  return sorted[rank - 1];
}

/** The same of unsorted values, for a metric: NaN for none (a metric not finite is left out). */
export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted(Float64Array.from(values).sort(), p) ?? Number.NaN;
}

/** Gini coefficient of non-negative values: 0 when all equal, → 1 when one holds everything. */
export function gini(values: number[]): number {
  const n = values.length;
  const total = values.reduce((s, v) => s + v, 0);
  if (n === 0 || total === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  let weighted = 0;
  sorted.forEach((v, i) => {
    weighted += (i + 1) * v;
  });
  return (2 * weighted) / (n * total) - (n + 1) / n;
}

/** Search, create and update metrics under a prefix ('' or '<label>.'). */
function opMetrics(
  prefix: string,
  search: OpStats,
  create: OpStats,
  update?: OpStats,
): Record<string, number> {
  const m: Record<string, number> = {};
  const put = (k: string, v: number) => {
    if (Number.isFinite(v)) m[`${prefix}${k}`] = v;
  };
  // Where an operation's bytes go: e.g. bytes.per_search.cidx next to bytes.per_search.profiles_dht,
  // and by message type, bytes.per_search.cidx.query next to bytes.per_search.cidx.query_response.
  const perProtocol = (name: string, s: OpStats) => {
    for (const split of [s.byProtocol, s.byType])
      for (const [proto, t] of split) {
        put(`messages.per_${name}.${proto}`, t.messages / s.count);
        put(`bytes.per_${name}.${proto}`, t.bytes / s.count);
      }
  };
  put('search.count', search.count);
  put('search.failed', search.failed);
  put('search.scored', search.scored);
  put('search.unresolved', search.unresolved);
  if (search.scored > 0) {
    put('search.unresolved_rate', search.unresolved / search.scored);
    put('search.top1_agreement', search.top1 / search.scored);
  }
  if (search.precisionN > 0) put('search.precision', search.precisionSum / search.precisionN);
  if (search.relErrN > 0) put('search.mean_rel_error', search.relErrSum / search.relErrN);
  if (search.count > 0) {
    put('messages.per_search', search.messages / search.count);
    put('bytes.per_search', search.bytes / search.count);
    perProtocol('search', search);
    put('search.latency_p50_ms', percentile(search.latencies, 50));
    put('search.latency_p95_ms', percentile(search.latencies, 95));
    put('search.latency_p99_ms', percentile(search.latencies, 99));
  }
  // Creates and updates are both changes: count, failures, wire cost and latency.
  const change = (name: string, s: OpStats) => {
    put(`${name}.count`, s.count);
    put(`${name}.failed`, s.failed);
    if (s.count > 0) {
      put(`messages.per_${name}`, s.messages / s.count);
      put(`bytes.per_${name}`, s.bytes / s.count);
      perProtocol(name, s);
      put(`${name}.latency_p50_ms`, percentile(s.latencies, 50));
      put(`${name}.latency_p95_ms`, percentile(s.latencies, 95));
    }
  };
  change('create', create);
  if (update !== undefined && update.count + update.failed > 0) change('update', update);
  return m;
}

/** The three operations a run measures. */
export interface OpGroup {
  search: OpStats;
  create: OpStats;
  update: OpStats;
}

const group = (): OpGroup => ({
  search: new OpStats(),
  create: new OpStats(),
  update: new OpStats(),
});

/** Every operation's statistics: the run's, and those of each `label=` (`before.search.…`). */
export class OpBook {
  readonly all = group();
  readonly labels = new Map<string, OpGroup>();

  /** Where one command's operations count: the run's totals, and its label's if it has one. */
  groups(label: string | undefined): OpGroup[] {
    if (label === undefined) return [this.all];
    let l = this.labels.get(label);
    if (l === undefined) {
      l = group();
      this.labels.set(label, l);
    }
    return [this.all, l];
  }

  metrics(): Record<string, number> {
    const m = opMetrics('', this.all.search, this.all.create, this.all.update);
    for (const [label, g] of this.labels)
      Object.assign(m, opMetrics(`${label}.`, g.search, g.create, g.update));
    return m;
  }
}

/** Charges the wire traffic of a command (all protocols, all nodes) to its operations. */
export function chargeTraffic(
  stats: OpStats[],
  before: Record<string, StreamTraffic>,
  after: Record<string, StreamTraffic>,
): void {
  for (const [proto, t] of Object.entries(after)) {
    const messages = t.messages - (before[proto]?.messages ?? 0);
    const bytes = t.bytes - (before[proto]?.bytes ?? 0);
    if (messages === 0 && bytes === 0) continue;
    const short = shortProtocolName(proto);
    for (const s of stats) {
      s.messages += messages;
      s.bytes += bytes;
      add(s.byProtocol, short, messages, bytes);
    }
    for (const [type, c] of Object.entries(t.types ?? {})) {
      const was = before[proto]?.types?.[type];
      const m = c.messages - (was?.messages ?? 0);
      const b = c.bytes - (was?.bytes ?? 0);
      if (m === 0 && b === 0) continue;
      for (const s of stats) add(s.byType, `${short}.${type}`, m, b);
    }
  }
}

function add(to: Map<string, TrafficCounters>, key: string, messages: number, bytes: number): void {
  const c = to.get(key);
  if (c === undefined) to.set(key, { messages, bytes });
  else {
    c.messages += messages;
    c.bytes += bytes;
  }
}

/** Traffic per protocol summed over several records (nodes, threads). */
export function sumTraffic(
  records: Iterable<Readonly<Record<string, StreamTraffic>>>,
): Record<string, StreamTraffic> {
  const out: Record<string, StreamTraffic> = {};
  for (const r of records)
    for (const [proto, t] of Object.entries(r)) {
      const o = out[proto] ?? { streams: 0, messages: 0, bytes: 0 };
      o.streams += t.streams;
      o.messages += t.messages;
      o.bytes += t.bytes;
      for (const [type, c] of Object.entries(t.types ?? {})) {
        o.types ??= {};
        const ot = o.types[type] ?? { messages: 0, bytes: 0 };
        ot.messages += c.messages;
        ot.bytes += c.bytes;
        o.types[type] = ot;
      }
      out[proto] = o;
    }
  return out;
}
