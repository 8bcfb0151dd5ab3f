/**
 * Traffic on the wire per libp2p protocol (kad-dht's two DHTs, identify, ping, cidx): streams
 * opened, messages (one a send, a length-prefixed frame) and bytes sent. It plugs into libp2p as
 * its Metrics component, which libp2p hands every negotiated protocol stream; counting the
 * outgoing side of every stream counts all traffic once (every byte one node receives, another
 * sent). One meter can serve a whole in-process swarm. Other metric kinds libp2p registers are
 * accepted and ignored.
 */
import type { Metrics, Stream } from '@libp2p/interface';
import type { TrafficCounters } from './meter.ts';

/** A protocol's traffic: the streams opened, and the messages and bytes sent on them. */
export interface StreamTraffic extends TrafficCounters {
  streams: number;
}

/** What `snapshot` gives: the report's tables still read the message count as `sends`. */
export interface ProtocolTraffic extends StreamTraffic {
  sends: number;
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

  /** The factory to pass as libp2p's `metrics` option. */
  readonly component = (): Metrics => {
    const register = (_name: string, options?: { calculate?: unknown }) =>
      options?.calculate === undefined ? NOOP_METRIC : undefined;
    return {
      trackMultiaddrConnection: noop,
      trackProtocolStream: (stream: Stream) => this.#track(stream),
      registerMetric: register,
      registerMetricGroup: register,
      registerCounter: register,
      registerCounterGroup: register,
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
    return Object.fromEntries([...this.#traffic].map(([k, v]) => [k, { ...v, sends: v.messages }]));
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
