/**
 * Messages and bytes per message type and direction, counted where they cross the wire.
 * `TrafficCounters` is the shape of every traffic count: per message type here, per protocol
 * (with streams) in wire-meter.ts, in the `stats` RPC and in the simulator's statistics.
 */
export interface TrafficCounters {
  messages: number;
  bytes: number;
}

export class Meter {
  readonly #counters = new Map<string, TrafficCounters>();

  /** Counts one message of `bytes` bytes under a name such as `out:query` or `in:store`. */
  count(name: string, bytes: number): void {
    const c = this.#counters.get(name);
    if (c === undefined) this.#counters.set(name, { messages: 1, bytes });
    else {
      c.messages++;
      c.bytes += bytes;
    }
  }

  snapshot(): Record<string, TrafficCounters> {
    return Object.fromEntries([...this.#counters].map(([k, v]) => [k, { ...v }]));
  }

  /** Sum over the names that start with `prefix` (e.g. `out:`). */
  total(prefix = ''): TrafficCounters {
    let messages = 0;
    let bytes = 0;
    for (const [k, v] of this.#counters) {
      if (k.startsWith(prefix)) {
        messages += v.messages;
        bytes += v.bytes;
      }
    }
    return { messages, bytes };
  }
}
