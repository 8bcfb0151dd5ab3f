import type { Connection, Libp2p } from '@libp2p/interface';

/** Streams of these protocols do not keep a connection open (libp2p's own list). */
const CLOSABLE = new Set(['/ipfs/id/1.0.0', '/ipfs/id/push/1.0.0', '/ipfs/ping/1.0.0']);

export interface PrunerOptions {
  /** Above this many connections, close some. */
  high: number;
  /** …down to this many. */
  low: number;
  /** Bound on closing one connection (ms). */
  closeTimeoutMs?: number;
}

/**
 * Keeps a host's connections under `high` with libp2p's own choice of which to close (lowest
 * tag value first, then fewest streams, inbound before outbound, newest first) but in batches,
 * as go-libp2p's connection manager does with its low and high water marks: above `high` it
 * closes down to `low` at once. libp2p's pruner trims one connection per connection opened
 * above its limit and re-reads every connected peer's peer-store record each time (under a
 * lock each), which was 8% of a 2000-node simulation's CPU; batched, that read happens once per
 * `high − low` new connections. The host's own limit stays above `high`, as a backstop.
 */
export function pruneInBatches(host: Libp2p, opts: PrunerOptions): () => void {
  let running = false;
  const check = () => {
    if (running || host.getConnections().length <= opts.high) return;
    running = true;
    trim(host, opts)
      .catch(() => {})
      .finally(() => {
        running = false;
      });
  };
  host.addEventListener('connection:open', check);
  return () => host.removeEventListener('connection:open', check);
}

async function trim(host: Libp2p, opts: PrunerOptions): Promise<void> {
  const connections = host.getConnections();
  const excess = connections.length - opts.low;
  if (excess <= 0) return;
  const value = new Map<string, number>();
  for (const c of connections) {
    const id = c.remotePeer.toString();
    if (value.has(id)) continue;
    value.set(id, 0);
    try {
      const peer = await host.peerStore.get(c.remotePeer);
      value.set(
        id,
        [...peer.tags.values()].reduce((sum, t) => sum + t.value, 0),
      );
    } catch {
      // Not in the peer store: worth nothing.
    }
  }
  const rank = (c: Connection) => value.get(c.remotePeer.toString()) ?? 0;
  const victims = connections
    .filter((c) => c.streams.every((s) => s.protocol === undefined || CLOSABLE.has(s.protocol)))
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.streams.length - b.streams.length ||
        Number(a.direction === 'outbound') - Number(b.direction === 'outbound') ||
        b.timeline.open - a.timeline.open,
    )
    .slice(0, excess);
  const timeout = opts.closeTimeoutMs ?? 1000;
  await Promise.all(
    victims.map((c) =>
      c.close({ signal: AbortSignal.timeout(timeout) }).catch((err: Error) => c.abort(err)),
    ),
  );
}
