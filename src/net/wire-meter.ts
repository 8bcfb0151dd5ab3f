/**
 * Traffic on the wire per libp2p protocol (kad-dht's two DHTs, identify, ping, cidx): streams
 * opened, sends (one per length-prefixed message) and bytes sent. It plugs into libp2p as its Metrics component, which libp2p
 * hands every negotiated protocol stream; counting the outgoing side of every stream counts all
 * traffic once (every byte one node receives, another sent). One meter can serve a whole
 * in-process swarm. It also counts connections opened and closed (the dialling end of each),
 * since opening one costs far more than a message on it. Other metric kinds libp2p registers
 * are accepted and ignored.
 */
import type { Metrics, MultiaddrConnection, Stream } from '@libp2p/interface';

export interface ProtocolTraffic {
  streams: number;
  sends: number;
  bytes: number;
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
  readonly #traffic = new Map<string, ProtocolTraffic>();
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
  snapshot(): Record<string, ProtocolTraffic> {
    return Object.fromEntries([...this.#traffic].map(([k, v]) => [k, { ...v }]));
  }

  /** Totals over every protocol. */
  total(): ProtocolTraffic {
    let streams = 0;
    let sends = 0;
    let bytes = 0;
    for (const t of this.#traffic.values()) {
      streams += t.streams;
      sends += t.sends;
      bytes += t.bytes;
    }
    return { streams, sends, bytes };
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
      t = { streams: 0, sends: 0, bytes: 0 };
      this.#traffic.set(protocol, t);
    }
    const counters = t;
    // Both ends of a stream are tracked; count the stream once, at the end that opened it.
    if (stream.direction === 'outbound') counters.streams++;
    const send = stream.send.bind(stream);
    stream.send = (data) => {
      counters.sends++;
      counters.bytes += data.byteLength;
      return send(data);
    };
  }
}

/** Difference of two snapshots (after − before), per protocol. */
export function trafficDelta(
  after: Record<string, ProtocolTraffic>,
  before: Record<string, ProtocolTraffic>,
): Record<string, ProtocolTraffic> {
  const out: Record<string, ProtocolTraffic> = {};
  for (const [p, a] of Object.entries(after)) {
    const b = before[p] ?? { streams: 0, sends: 0, bytes: 0 };
    out[p] = { streams: a.streams - b.streams, sends: a.sends - b.sends, bytes: a.bytes - b.bytes };
  }
  return out;
}
