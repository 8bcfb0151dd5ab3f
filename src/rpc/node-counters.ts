/**
 * What a node process counts for the `stats` RPC beyond the RPC layer's own calls: the wire
 * traffic of every libp2p protocol (both DHTs, identify, ping, cidx, …), the DHT lookups and
 * searches it made, the notifications it accepted. They hang off the node's observers
 * (NodeOptions.metrics, onLookup, onSearch, the `notification` event), so a node created
 * without them pays nothing; a `cidx node` process always has them.
 */
import type { LookupStats } from '../net/closest.ts';
import { type MetricsFactory, teeMetrics } from '../net/metrics-tee.ts';
import { WireMeter } from '../net/wire-meter.ts';
import type { NodeOptions, SearchStats } from '../node/config.ts';
import type { CidxNode } from '../node/node.ts';
import type { NodeCountersJSON } from './api.ts';

export class NodeCounters {
  readonly #wire = new WireMeter();
  readonly #lookups = { count: 0, messages: 0, hops: 0, ms: 0 };
  readonly #searches = noSearches();
  #notifications = 0;

  /**
   * The node options that feed the counters; `metrics` is libp2p's other Metrics component,
   * if any (Prometheus), which keeps receiving everything.
   */
  nodeOptions(metrics?: MetricsFactory): Pick<NodeOptions, 'metrics' | 'onLookup' | 'onSearch'> {
    return {
      metrics: teeMetrics(this.#wire, metrics),
      onLookup: (_dht, s: LookupStats) => {
        this.#lookups.count++;
        this.#lookups.messages += s.messages;
        this.#lookups.hops += s.hops;
        this.#lookups.ms += s.ms;
      },
      onSearch: (s: SearchStats) => {
        this.#searches.count++;
        this.#searches.requests += s.requests;
        this.#searches.peers += s.peers;
        this.#searches.repeatQueries += s.repeatQueries;
        this.#searches.keysDropped += s.keysDropped;
        this.#searches.keysRouted += s.keysRouted;
      },
    };
  }

  /** Counts the notifications `node` accepts. */
  watch(node: CidxNode): void {
    node.on('notification', () => {
      this.#notifications++;
    });
  }

  snapshot(): NodeCountersJSON {
    return {
      wire: this.#wire.snapshot(),
      lookups: { ...this.#lookups },
      searches: { ...this.#searches },
      notifications: { received: this.#notifications },
    };
  }
}

/** Search totals before any search: what `stats` and the simulator's counters start from. */
export function noSearches(): NodeCountersJSON['searches'] {
  return { count: 0, requests: 0, peers: 0, repeatQueries: 0, keysDropped: 0, keysRouted: 0 };
}
