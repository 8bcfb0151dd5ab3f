/**
 * A node's Prometheus series, in a registry of its own (never prom-client's process-wide default
 * one): cidx's operations, the requests it serves, what it holds, and libp2p's own series,
 * which @libp2p/prometheus-metrics writes into the same registry when passed as libp2p's
 * `metrics` component. A node created without metrics has no registry at all.
 */
import { prometheusMetrics } from '@libp2p/prometheus-metrics';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HostOptions } from '../net/libp2p.ts';
import type { ServedObserver } from '../net/server.ts';
import type { CidxNode } from '../node/node.ts';

/** Seconds; a search over a large swarm takes seconds, a local get milliseconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Why the RPC port refused a request before running it (the `reason` label). */
export type RefusalReason =
  | 'token'
  | 'host'
  | 'origin'
  | 'content-type'
  | 'body-size'
  | 'event-clients'
  | 'not-serving';

export class NodeMetrics {
  readonly registry: Registry;
  readonly #ops: Counter<'op' | 'outcome'>;
  readonly #duration: Histogram<'op'>;
  readonly #served: Counter<'type' | 'outcome'>;
  readonly #refused: Counter<'reason'>;
  readonly #gauges: Record<GaugeName, Gauge<string>>;
  readonly #peers: Gauge<'dht'>;
  readonly #dials: { refused: Counter; backedOff: Counter };
  /** What the node had counted at the last scrape. */
  #dialsSeen = { refused: 0, backedOff: 0 };
  #node: CidxNode | undefined;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.#ops = new Counter({
      name: 'cidx_operations_total',
      help: 'Node operations run through the RPC port, by operation and outcome',
      labelNames: ['op', 'outcome'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'cidx_operation_duration_seconds',
      help: 'Duration of node operations run through the RPC port',
      labelNames: ['op'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#served = new Counter({
      name: 'cidx_requests_served_total',
      help: 'cidx protocol requests served to other peers, by message type and outcome',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.#refused = new Counter({
      name: 'cidx_rpc_refused_total',
      help: 'HTTP requests the RPC port refused before running them, by reason',
      labelNames: ['reason'],
      registers,
    });
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
    this.#gauges = {
      entries: gauge('cidx_index_entries', 'Index entries (descriptor copies) held, all keys'),
      keys: gauge('cidx_index_keys', 'DHT keys under which this node holds descriptors'),
      contacts: gauge('cidx_contacts', 'Contact records held (AddressesDHT)'),
      tombstones: gauge('cidx_tombstones', 'Tombstones of dissolved communities held'),
      bytes: gauge('cidx_index_bytes', 'Bytes of signed records held'),
      inbox: gauge('cidx_inbox_notifications', 'Notifications kept in the inbox'),
      owned: gauge('cidx_owned_communities', 'Communities this node owns'),
      connections: gauge('cidx_connections', 'Open libp2p connections'),
      swarm: gauge(
        'cidx_swarm_size_estimate',
        "Nodes in the swarm as this node's lookups estimate it (0 before its first)",
      ),
    };
    const counter = (name: string, help: string) => new Counter({ name, help, registers });
    this.#dials = {
      refused: counter(
        'cidx_dials_refused_total',
        'Dials the peer closed before the handshake (at its connection limit, or another swarm), since start',
      ),
      backedOff: counter(
        'cidx_dials_backed_off_total',
        'Dials not tried: the peer had refused a connection within timing.refusedBackoffMs',
      ),
    };
    this.#peers = new Gauge({
      name: 'cidx_peers',
      help: 'Peers in the routing table of each DHT',
      labelNames: ['dht'],
      registers,
    });
  }

  /** libp2p's `metrics` component (NodeOptions.metrics), writing libp2p's series here. */
  libp2pMetrics(): NonNullable<HostOptions['metrics']> {
    return prometheusMetrics({ registry: this.registry }) as NonNullable<HostOptions['metrics']>;
  }

  /** For NodeOptions.onServed. */
  readonly served: ServedObserver = (type, outcome) => {
    this.#served.inc({ type, outcome });
  };

  /** The node whose holdings the gauges report (set once it exists). */
  watch(node: CidxNode): void {
    this.#node = node;
  }

  operation(op: string, outcome: string, seconds: number): void {
    this.#ops.inc({ op, outcome });
    this.#duration.observe({ op }, seconds);
  }

  refused(reason: RefusalReason): void {
    this.#refused.inc({ reason });
  }

  /** The text exposition: the gauges read from one snapshot of the node, then every series. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const node = this.#node;
    if (node !== undefined) {
      const info = node.info();
      const g = this.#gauges;
      g.entries.set(info.stored.descriptors);
      g.keys.set(info.stored.keys);
      g.contacts.set(info.stored.contacts);
      g.tombstones.set(info.stored.tombstones);
      g.bytes.set(info.stored.bytes);
      g.inbox.set(info.inbox);
      g.owned.set(info.owned);
      g.connections.set(info.peers.connections);
      g.swarm.set(info.peers.swarmEstimate);
      // Counted by the node since start: each scrape adds what is new.
      this.#dials.refused.inc(info.peers.refusedDials - this.#dialsSeen.refused);
      this.#dials.backedOff.inc(info.peers.backedOffDials - this.#dialsSeen.backedOff);
      this.#dialsSeen = { refused: info.peers.refusedDials, backedOff: info.peers.backedOffDials };
      this.#peers.set({ dht: 'profiles' }, info.peers.profiles);
      this.#peers.set({ dht: 'addresses' }, info.peers.addresses);
    }
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

type GaugeName =
  | 'entries'
  | 'keys'
  | 'contacts'
  | 'tombstones'
  | 'bytes'
  | 'inbox'
  | 'owned'
  | 'swarm'
  | 'connections';
