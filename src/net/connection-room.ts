/**
 * A new peer let in at the connection limit in place of an idle one. libp2p 3.3 refuses every
 * inbound connection once a node holds `maxConnections`, and prunes only above the limit, the
 * newest connections first. A node holding the descriptors of popular keys gathers a connection
 * from every peer that ever searched them, reaches the limit with connections long idle, and
 * then refuses every new searcher: in a 2000-node simulation most connections a search opened
 * were such refusals, a third of its CPU (docs/BENCHMARKS.md, "Refused connections at 2000
 * nodes").
 *
 * At the limit, an inbound connection that libp2p would refuse for the limit alone is taken,
 * and one connection is closed for it: one without streams, open at least `idleMs`, to a peer
 * no tag values (kad-dht tags the peers of its routing tables and its closest peers; a node's
 * own tags count too), the oldest first. Without such a connection the limit refuses, as
 * before. One for one, never ahead of need: closing idle connections down to a low mark before
 * the limit, as go-libp2p does, was measured here to make peers dial again and again ("Closing
 * idle connections before the limit, measured and not kept"). Until it has closed, a connection
 * closed for room does not count toward the limit: neither the next inbound connection nor
 * libp2p's pruner (connection-manager.ts) sees the node above it for that one.
 *
 * libp2p has no option for this; reached through its connection manager's
 * `acceptIncomingConnection`, checked by `connectionRoomMissing`, left alone if its shape changes.
 */
import type { Connection, Tag } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { connectedRecords } from './connected-records.ts';

/** A close that takes longer is aborted (ms). */
const CLOSE_MS = 1000;
const INSTALLED = Symbol('cidx.connectionRoom');

/** Connections being closed to make room: no longer counted against the limit. */
const leaving = new WeakSet<Connection>();

/** Whether the connection is being closed to make room for another. */
export function isLeaving(c: Connection): boolean {
  return leaving.has(c);
}

interface ManagerInsides {
  maxConnections?: number;
  acceptIncomingConnection?: (maConn: unknown) => boolean;
  getConnections?: () => Connection[];
}

type StoredTags = Map<string, Tag & { expiry?: bigint }>;

function valued(tags: StoredTags, now: bigint): boolean {
  for (const t of tags.values())
    if (t.value > 0 && (t.expiry == null || t.expiry >= now)) return true;
  return false;
}

/** Room made and refused at the limit, for the node's counters. */
export interface RoomCounts {
  /** Idle connections closed for a new peer. */
  replaced: number;
  /** Inbound connections refused at the limit: no idle, untagged connection to close. */
  refused: number;
}

/**
 * Installs it on a host (before or after start). `idleMs` 0 leaves libp2p's refusal alone.
 * Returns the counts, or undefined if libp2p lacks the part (nothing changed).
 */
export function makeRoomAtLimit(host: Libp2p, idleMs: number): RoomCounts | undefined {
  const cm = (host as unknown as { components?: { connectionManager?: ManagerInsides } }).components
    ?.connectionManager;
  const accept = cm?.acceptIncomingConnection;
  if (
    cm === undefined ||
    idleMs <= 0 ||
    typeof accept !== 'function' ||
    typeof cm.maxConnections !== 'number' ||
    typeof cm.getConnections !== 'function'
  )
    return undefined;
  const manager = cm as Required<ManagerInsides>;
  const records = connectedRecords(host);
  const counts: RoomCounts = { replaced: 0, refused: 0 };

  /** The oldest open connection without streams, older than idleMs, whose peer nothing values. */
  const idlest = (all: Connection[]): Connection | undefined => {
    const at = Date.now(); // the clock of libp2p's connection timelines and tag expiries
    const now = BigInt(at);
    let best: Connection | undefined;
    for (const c of all) {
      if (leaving.has(c) || c.status !== 'open' || c.streams.length > 0) continue;
      if (at - c.timeline.open < idleMs) continue;
      if (best !== undefined && best.timeline.open <= c.timeline.open) continue;
      // A peer whose record is not known yet is left alone: its tags cannot be read.
      const record = records.get(c.remotePeer);
      if (record === undefined || valued(record.peer.tags as StoredTags, now)) continue;
      best = c;
    }
    return best;
  };

  manager.acceptIncomingConnection = (maConn) => {
    const all = manager.getConnections();
    let closing = 0;
    for (const c of all) if (leaving.has(c)) closing++;
    const limit = manager.maxConnections;
    // Below the limit, or refused for another reason (deny list, pending, rate): libp2p decides.
    if (all.length - closing < limit) {
      manager.maxConnections = limit + closing;
      try {
        return accept.call(manager, maConn);
      } finally {
        manager.maxConnections = limit;
      }
    }
    const victim = idlest(all);
    if (victim === undefined) {
      counts.refused++;
      return accept.call(manager, maConn);
    }
    manager.maxConnections = limit + closing + 1;
    let taken: boolean;
    try {
      taken = accept.call(manager, maConn);
    } finally {
      manager.maxConnections = limit;
    }
    if (!taken) return false;
    counts.replaced++;
    leaving.add(victim);
    victim
      .close({ signal: AbortSignal.timeout(CLOSE_MS) })
      .catch((err: Error) => victim.abort(err));
    return true;
  };
  (host as unknown as Record<symbol, boolean>)[INSTALLED] = true;
  return counts;
}

/** Empty when installed; else why not, in one line. */
export function connectionRoomMissing(host: Libp2p): string[] {
  return (host as unknown as Record<symbol, boolean>)[INSTALLED]
    ? []
    : [
        "libp2p's inbound connection check was not found; a node at its limit refuses every new peer",
      ];
}
