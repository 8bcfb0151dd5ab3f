/**
 * libp2p takes one Metrics component. A `cidx node` process wants two: its per-protocol wire
 * counters (the `stats` RPC, which the simulator sums over a swarm of processes) always, and
 * Prometheus's series when metrics are on. `teeMetrics` hands every protocol stream to both and
 * leaves everything else to the Prometheus component; without one, the meter alone is libp2p's
 * component. Both only wrap `stream.send` (a closure per stream), so the second costs a
 * counter increment per message.
 */
import type { Metrics, Stream } from '@libp2p/interface';
import type { WireMeter } from './wire-meter.ts';

export type MetricsFactory = (components: unknown) => Metrics;

export function teeMetrics(meter: WireMeter, other?: MetricsFactory): MetricsFactory {
  if (other === undefined) return meter.component;
  return (components) => {
    const main = other(components);
    const wire = meter.component();
    // A Proxy rather than a copy: the component is a class instance whose methods and
    // lifecycle (start, stop, capabilities) libp2p reads from it.
    return new Proxy(main, {
      get(target, prop, receiver) {
        if (prop === 'trackProtocolStream')
          return (stream: Stream) => {
            wire.trackProtocolStream(stream);
            target.trackProtocolStream(stream);
          };
        const v: unknown = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };
}
