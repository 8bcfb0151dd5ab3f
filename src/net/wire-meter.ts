/**
 * Traffic on the wire per libp2p protocol (kad-dht's two DHTs, identify, ping, cidx): streams
 * opened, messages (one a send, a length-prefixed frame) and bytes sent. It plugs into libp2p as
 * its Metrics component, which libp2p hands every negotiated protocol stream; counting the
 * outgoing side of every stream counts all traffic once (every byte one node receives, another
 * sent). One meter can serve a whole in-process swarm. It also counts connections opened and
 * closed (the dialling end of each), since opening one costs far more than a message on it.
 * Other metric kinds libp2p registers are accepted and ignored.
 */
import type { Metrics, MultiaddrConnection, Stream } from '@libp2p/interface';
import type { TrafficCounters } from './meter.ts';

/** A protocol's traffic: the streams opened, and the messages and bytes sent on them. */
export interface StreamTraffic extends TrafficCounters {
  streams: number;
}

const noop = () => {};
const NOOP_METRIC = {
  update: noop,
  increment: noop,
  decrement: noop,
  reset: noop,
  observe: noop,
  timer: () => noop,
};

export class WireMeter {
  readonly #traffic = new Map<string, StreamTraffic>();
  /** Connections whose upgrade began (dialling end) and those of them closed since. */
  readonly connections = { opened: 0, closed: 0 };
  /**
   * What libp2p's components count in their counter groups, summed over the swarm by
   * `metric:label` — e.g. kad-dht's routing-table events (peer added, ping of a new contact
   * and its failure), which say what a lookup's side work costs.
   */
  readonly events = new Map<string, number>();

  /** The factory to pass as libp2p's `metrics` option. */
  readonly component = (): Metrics => {
    const register = (_name: string, options?: { calculate?: unknown }) =>
      options?.calculate === undefined ? NOOP_METRIC : undefined;
    return {
      trackMultiaddrConnection: (conn: MultiaddrConnection) => this.#trackConnection(conn),
      trackProtocolStream: (stream: Stream) => this.#track(stream),
      registerMetric: register,
      registerMetricGroup: register,
      registerCounter: register,
      registerCounterGroup: (name: string, options?: { calculate?: unknown }) =>
        options?.calculate === undefined ? this.#counterGroup(name) : undefined,
      registerHistogram: register,
      registerHistogramGroup: register,
      registerSummary: register,
      registerSummaryGroup: register,
      traceFunction: (_name: string, fn: unknown) => fn,
      createTrace: () => undefined,
    } as unknown as Metrics;
  };

  /** A copy of the counters, by protocol id. */
  /** Every protocol's traffic summed. */
  total(): StreamTraffic {
    const sum: StreamTraffic = { streams: 0, messages: 0, bytes: 0 };
    for (const t of this.#traffic.values()) {
      sum.streams += t.streams;
      sum.messages += t.messages;
      sum.bytes += t.bytes;
    }
    return sum;
  }

  snapshot(): Record<string, StreamTraffic> {
    return Object.fromEntries([...this.#traffic].map(([k, v]) => [k, { ...v }]));
  }

  #counterGroup(name: string) {
    // Metric names carry the DHT's prefix (libp2p_dht_profiles_…): one entry per DHT.
    const count = (values: Record<string, number | boolean>) => {
      for (const [label, v] of Object.entries(values)) {
        const key = `${name}:${label}`;
        this.events.set(key, (this.events.get(key) ?? 0) + (v === true ? 1 : Number(v) || 0));
      }
    };
    return { ...NOOP_METRIC, increment: count };
  }

  #trackConnection(conn: MultiaddrConnection): void {
    if (conn.direction !== 'outbound') return;
    this.connections.opened++;
    conn.addEventListener('close', () => this.connections.closed++, { once: true });
  }

  #track(stream: Stream): void {
    const protocol = stream.protocol ?? 'unknown';
    let t = this.#traffic.get(protocol);
    if (t === undefined) {
      t = { streams: 0, messages: 0, bytes: 0 };
      this.#traffic.set(protocol, t);
    }
    const counters = t;
    // Both ends of a stream are tracked; count the stream once, at the end that opened it.
    if (stream.direction === 'outbound') counters.streams++;
    const send = stream.send.bind(stream);
    stream.send = (data) => {
      counters.messages++;
      counters.bytes += data.byteLength;
      return send(data);
    };
  }
}
