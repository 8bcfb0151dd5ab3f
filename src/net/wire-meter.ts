/**
 * Traffic on the wire per libp2p protocol (kad-dht's two DHTs, identify, ping, cidx): streams
 * opened, messages (one a send, a length-prefixed frame) and bytes sent. It plugs into libp2p as
 * its Metrics component, which libp2p hands every negotiated protocol stream; counting the
 * outgoing side of every stream counts all traffic once (every byte one node receives, another
 * sent). One meter can serve a whole in-process swarm. It also counts connections opened and
 * closed (the dialling end of each), since opening one costs far more than a message on it.
 * Where a protocol has message types, it splits the same count by type (`types`): kad-dht's
 * from each frame's first protobuf field (`find_node`, `get_value_response`, …), cidx's from
 * the label its client and server give the stream (`labelStream`), since a cidx response does
 * not name its request. Other metric kinds libp2p registers are accepted and ignored.
 */
import type { Metrics, MultiaddrConnection, Stream } from '@libp2p/interface';
import * as varint from 'uint8-varint';
import { INDEX_PROTOCOL } from './codec.ts';
import { Meter, type TrafficCounters } from './meter.ts';

/** A protocol's traffic: the streams opened, and the messages and bytes sent on them. */
export interface StreamTraffic extends TrafficCounters {
  streams: number;
  /** The same messages and bytes by message type, for protocols whose types the meter knows. */
  types?: Record<string, TrafficCounters>;
}

/** What a labelled stream carries (a cidx request's type), for the split by message type. */
const labels = new WeakMap<object, string>();

/**
 * Names the message type a stream carries, as its requester and its responder know it; the
 * meter counts the requester's frames under `label`, the responder's under `label_response`.
 */
export function labelStream(stream: object, label: string): void {
  labels.set(stream, label.replaceAll('-', '_'));
}

/** kad-dht's message types by their protobuf value (@libp2p/kad-dht's `MessageType`). */
const KAD_TYPES = ['put_value', 'get_value', 'add_provider', 'get_providers', 'find_node', 'ping'];

/** A frame as a stream sends it: bytes, or a list of them (read only through `subarray`). */
type Frame = { byteLength: number; subarray(start: number, end: number): Uint8Array };

/**
 * The type of a kad-dht frame: a varint length, then the message, whose first field is the type
 * (tag 0x08) unless it is PUT_VALUE, the default, which protobuf leaves out.
 */
export function kadMessageType(frame: Frame): string {
  const head = frame.subarray(0, Math.min(16, frame.byteLength));
  try {
    const at = varint.encodingLength(varint.decode(head));
    if (head[at] !== 0x08) return 'put_value';
    return KAD_TYPES[varint.decode(head, at + 1)] ?? 'other';
  } catch {
    return 'other';
  }
}

const isKad = (protocol: string) => /\/kad\/[^/]+$/.test(protocol);

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
  /** By protocol, its traffic by message type. */
  readonly #types = new Map<string, Meter>();
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

  /** A copy of the counters, by protocol id, each with its split by message type if any. */
  snapshot(): Record<string, StreamTraffic> {
    return Object.fromEntries(
      [...this.#traffic].map(([k, v]) => {
        const types = this.#types.get(k);
        return [k, types === undefined ? { ...v } : { ...v, types: types.snapshot() }];
      }),
    );
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
    const outbound = stream.direction === 'outbound';
    if (outbound) counters.streams++;
    const countType = this.#typeCounter(protocol, stream, outbound);
    const send = stream.send.bind(stream);
    stream.send = (data) => {
      counters.messages++;
      counters.bytes += data.byteLength;
      countType?.(data);
      return send(data);
    };
  }

  /** Counts a frame under its message type on this stream, if the protocol has types. */
  #typeCounter(
    protocol: string,
    stream: Stream,
    outbound: boolean,
  ): ((data: Frame) => void) | undefined {
    const suffix = outbound ? '' : '_response';
    let typeOf: (data: Frame) => string;
    if (isKad(protocol)) typeOf = (data) => kadMessageType(data) + suffix;
    // Read at the first send: the client labels its stream before writing, the server once it
    // has read the request.
    else if (protocol === INDEX_PROTOCOL) typeOf = () => (labels.get(stream) ?? 'other') + suffix;
    else return undefined;
    let types = this.#types.get(protocol);
    if (types === undefined) {
      types = new Meter();
      this.#types.set(protocol, types);
    }
    const meter = types;
    return (data) => meter.count(typeOf(data), data.byteLength);
  }
}
