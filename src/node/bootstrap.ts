import type { PeerId } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { sortByDistance } from '../net/closest.ts';
import { deadline as timeLimit } from '../net/deadline.ts';
import type { CidxLibp2p } from '../net/libp2p.ts';
import type { Timing } from './config.ts';
import { SwarmMismatchError } from './errors.ts';
import type { RoutingTables } from './routing-tables.ts';
import type { SwarmCheck } from './swarm-check.ts';
import type { Timers } from './timers.ts';

export interface BootstrapOptions {
  libp2p: CidxLibp2p;
  /** Multiaddrs (with /p2p/…) of peers already in the swarm. */
  peers: string[];
  timing: Timing;
  check: SwarmCheck;
  tables: RoutingTables;
  timers: Timers;
  warn(msg: string): void;
  /** The self-lookup's closest peers, closest first, and its key. */
  onSelfLookup?(key: Uint8Array, closest: PeerId[]): void;
}

/**
 * Joins the swarm through the bootstrap peers: dials each and checks that it runs our swarm
 * parameters (SwarmMismatchError otherwise), then fills the routing tables. With no bootstrap
 * peer reachable, warns and keeps dialling them in the background while no peer is connected.
 */
export async function joinSwarm(o: BootstrapOptions): Promise<void> {
  if (o.peers.length === 0) return;
  let reached = 0;
  let lastError: unknown;
  for (const addr of o.peers) {
    try {
      const conn = await o.libp2p.dial(multiaddr(addr), {
        signal: AbortSignal.timeout(o.timing.requestTimeoutMs),
      });
      await o.check.requireSame(conn.remotePeer);
      reached++;
    } catch (err) {
      if (err instanceof SwarmMismatchError) throw err;
      lastError = err;
    }
  }
  if (reached > 0) {
    await fillRoutingTables(o);
    return;
  }
  o.warn(`no bootstrap peer reachable (${(lastError as Error)?.message}); retrying`);
  o.timers.every(o.timing.bootstrapRetryMs, async () => {
    if (o.libp2p.getConnections().length > 0) return;
    await Promise.allSettled(o.peers.map((a) => o.libp2p.dial(multiaddr(a))));
  });
}

/**
 * Kademlia's join step: wait until the bootstrap peers are in the routing tables (kad-dht adds
 * them once identify confirms the protocol), then look up our own id on ProfilesDHT, which
 * fills the table with our neighbours and tells them about us. Both DHTs run over the same
 * connections, so AddressesDHT learns the same peers as they are identified: one self-lookup
 * serves both (a second one measured as pure cost). kad-dht follows only peers closer to the key
 * than the one that named them: in a small swarm the lookup can end at the first peer asked, and
 * the others learn of us through it. Without this step a node that just started would treat
 * itself as the closest peer of every key. Bounded by lookupTimeoutMs.
 */
async function fillRoutingTables(o: BootstrapOptions): Promise<void> {
  const end = Date.now() + o.timing.lookupTimeoutMs;
  await o.tables.waitForPeers(end);
  const limit = timeLimit(Math.max(1, end - Date.now()));
  try {
    const self = o.libp2p.peerId.toMultihash().bytes;
    const closest: PeerId[] = [];
    for await (const ev of o.libp2p.services.profiles.getClosestPeers(self, {
      signal: limit.signal,
    })) {
      // Draining the lookup is the point: each answer adds peers to the routing table.
      if (ev.name === 'FINAL_PEER') closest.push(ev.peer.id);
    }
    if (closest.length > 0) o.onSelfLookup?.(self, sortByDistance(closest, self));
  } catch (err) {
    if (!limit.signal.aborted) o.warn(`self-lookup: ${(err as Error).message}`);
  } finally {
    limit.clear();
  }
}
