/** What a simulator run produces; `writeReports` renders it as JSON, Markdown and HTML. */
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import type { NetworkStats } from '../network/member.ts';

/** The network model a run's nodes used. */
export interface NetworkReport {
  /** What the model adds: delays, regions, access, bandwidth. */
  description: string;
  stats: NetworkStats;
  /** Regions with nodes, in the table's order: nodes that ever joined there, and alive now. */
  regions?: { id: string; name: string; joined: number; alive: number }[];
  /** Round trips between those regions (ms), as the table gives them (access not included). */
  rttMs?: number[][];
  /** Each partition: when (ms since start) and how many live nodes on each side. */
  partitions: { n: number; began: number; ended?: number; minority: number; majority: number }[];
}

export interface SimReport {
  scenario: {
    /** The scenario file as given on the command line. */
    file: string;
    seed: number;
    /** ISO-8601 start time. */
    startedAt: string;
    durationMs: number;
    /** Node.js version and machine, e.g. "node v24.21.0, AMD EPYC × 2". */
    machine: string;
    /** Most nodes alive at once. */
    nodesPeak: number;
    /**
     * How the nodes ran: `in-process` (memory transport, plaintext), `workers` (in worker threads
     * of this process: memory transport, a MessagePort per connection between threads), `processes` (a `cidx node` each, TCP +
     * noise on 127.0.0.1), `netns` (the same, each in its own network namespace), `endpoints`
     * (running elsewhere, driven over JSON-RPC).
     */
    mode: 'in-process' | 'workers' | 'processes' | 'netns' | 'endpoints';
    /** Stopped before its end (Ctrl-C): the metrics are those measured until then. */
    interrupted?: boolean;
  };
  /** Every metric, flat dotted names (e.g. `search.top1_agreement`, `traffic.cidx.bytes`). */
  metrics: Record<string, number>;
  /** The network model, when the swarm runs on one. */
  network?: NetworkReport;
  /** Each `expect` line, in file order, with the value it saw when it ran. */
  expects: {
    line: number;
    text: string;
    metric: string;
    op: '<' | '<=' | '==' | '>=' | '>';
    value: number;
    /** null when the metric did not exist when the expect ran. */
    actual: number | null;
    pass: boolean;
  }[];
  /** One row per command run: when it started (ms since start), what, how long it took. */
  timeline: { t: number; line: number; command: string; durationMs: number; note?: string }[];
  series: {
    /** Live nodes over time (ms since start). */
    nodes: { t: number; alive: number }[];
    /** Resident set size over time, MiB. */
    rssMb: { t: number; rss: number }[];
    /** Latency of every search and create, ms. */
    searchLatencyMs: number[];
    createLatencyMs: number[];
    /** When each search and create began (ms since start) and its latency (ms). */
    latencyOverTime: { t: number; ms: number; kind: 'search' | 'create' }[];
    /** Index entries held by each live node when the report was made. */
    loadPerNode: number[];
    /** Wire traffic per libp2p protocol id. */
    protocols: Record<string, StreamTraffic>;
  };
}
