/**
 * Three costs of libp2p 3.3's connection manager that grow with the connections a node holds,
 * cut without changing what it does. Measured (docs/BENCHMARKS.md, "What a search message
 * allocates"): at 2000 simulated nodes, where the busiest nodes hold 300 connections, they were
 * the largest part of what a search message allocated more than at 500 — garbage, whose
 * collection is what made a message cost more in a larger swarm.
 *
 * - `getConnections()` without a peer joins every peer's list with `concat` in a loop, copying
 *   the growing array once per peer: quadratic in the node's connections. libp2p calls it for
 *   every inbound connection (its limit check) and every connection that opens (its pruner).
 *   Replaced by one pass that gives the same connections in the same order. Upstream, the fix
 *   is one line: `[...this.connections.values()].flat()`.
 * - Once a node is over its limit, the pruner, on every connection that opens, reads the whole
 *   peer-store record of every connected peer (a lock, a datastore read, a decoded record with
 *   addresses and protocols) to sum its tags. It is handed a peer store that answers `get` with
 *   the tags of the connected peer's record as libp2p last wrote or read it (connected-records.ts:
 *   replaced on every `peer:update`, dropped when the peer disconnects; shared with the streams'
 *   protocol writes), reading the store only for a peer not yet known; expired tags are left out
 *   at each read, as the peer store does. The same sums as before — unless a connected peer's
 *   record is deleted (libp2p dispatches nothing then): its tags count until it disconnects.
 * - Under the limit too, the pruner lists every connection on each one that opens, only to
 *   compare their number with the limit. It now counts them first, without building the list,
 *   and runs libp2p's own pruning only above the limit.
 *
 * All three live behind libp2p's public interface and are reached through the host's components;
 * `connectionManagerMissing` names what was not found (a test asserts all on a real host, so an
 * upgrade that moves them fails it). Without them libp2p does as before: CPU, not correctness.
 */
import type { Connection, PeerId, PeerStore, Tag } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { connectedRecords } from './connected-records.ts';

interface ManagerInsides {
  /** A PeerMap: not a Map, but with values(). */
  connections?: { values?: () => Iterable<Connection[]> };
  getConnections?: (peerId?: PeerId) => Connection[];
  getMaxConnections?: () => number;
  connectionPruner?: {
    peerStore?: Pick<PeerStore, 'get'>;
    _maybePruneConnections?: () => Promise<void>;
  };
}

/** Tags as the peer store keeps them: an expiry (ms since the epoch) where one was set. */
type StoredTags = Map<string, Tag & { expiry?: bigint }>;

const LINEAR = Symbol('cidx.linearConnections');
const TAGS_ONLY = Symbol('cidx.prunerTags');
const COUNTS_FIRST = Symbol('cidx.prunerCounts');

function managerOf(host: Libp2p): ManagerInsides | undefined {
  return (host as unknown as { components?: { connectionManager?: ManagerInsides } }).components
    ?.connectionManager;
}

function linearConnectionList(cm: ManagerInsides): void {
  const own = cm.getConnections;
  const connections = cm.connections;
  if (typeof own !== 'function' || typeof connections?.values !== 'function') return;
  const lists = connections.values.bind(connections);
  const linear = (peerId?: PeerId): Connection[] => {
    if (peerId != null) return own.call(cm, peerId);
    const all: Connection[] = [];
    for (const list of lists()) for (const c of list) all.push(c);
    return all;
  };
  cm.getConnections = Object.assign(linear, { [LINEAR]: true });
}

function unexpired(tags: StoredTags): StoredTags {
  const now = BigInt(Date.now());
  for (const t of tags.values()) {
    if (t.expiry != null && t.expiry < now) {
      return new Map([...tags].filter(([, x]) => x.expiry == null || x.expiry >= now));
    }
  }
  return tags;
}

function prunerReadsTagsOnly(host: Libp2p, cm: ManagerInsides): void {
  const pruner = cm.connectionPruner;
  const store = pruner?.peerStore;
  if (pruner === undefined || typeof store?.get !== 'function') return;
  const real = store.get.bind(store);
  const records = connectedRecords(host);
  const get = async (peerId: PeerId) => {
    const known = records.get(peerId);
    if (known !== undefined) return { tags: unexpired(known.tags as StoredTags) };
    return records.through(peerId, false, () => real(peerId));
  };
  pruner.peerStore = Object.assign({ get }, { [TAGS_ONLY]: true }) as unknown as Pick<
    PeerStore,
    'get'
  >;
}

function prunerCountsFirst(cm: ManagerInsides): void {
  const pruner = cm.connectionPruner;
  const own = pruner?._maybePruneConnections;
  const connections = cm.connections;
  const max = cm.getMaxConnections;
  if (
    pruner === undefined ||
    typeof own !== 'function' ||
    typeof connections?.values !== 'function' ||
    typeof max !== 'function'
  )
    return;
  const lists = connections.values.bind(connections);
  const countsFirst = async () => {
    let n = 0;
    for (const list of lists()) n += list.length;
    if (n <= max.call(cm)) return;
    await own.call(pruner);
  };
  pruner._maybePruneConnections = Object.assign(countsFirst, { [COUNTS_FIRST]: true });
}

/** Installs all three on a host's connection manager (before or after start). */
export function lighterConnectionManager(host: Libp2p): void {
  const cm = managerOf(host);
  if (cm === undefined) return;
  linearConnectionList(cm);
  prunerReadsTagsOnly(host, cm);
  prunerCountsFirst(cm);
}

/** What of the connection manager's insides was not found, one line each (empty: all there). */
export function connectionManagerMissing(host: Libp2p): string[] {
  const cm = managerOf(host);
  const out: string[] = [];
  if (!(cm?.getConnections as { [LINEAR]?: boolean } | undefined)?.[LINEAR])
    out.push(
      "libp2p's connection list was not found; listing a node's connections stays quadratic",
    );
  if (!(cm?.connectionPruner?.peerStore as { [TAGS_ONLY]?: boolean } | undefined)?.[TAGS_ONLY])
    out.push("libp2p's connection pruner was not found; it reads whole peer records to prune");
  if (
    !(cm?.connectionPruner?._maybePruneConnections as { [COUNTS_FIRST]?: boolean } | undefined)?.[
      COUNTS_FIRST
    ]
  )
    out.push("libp2p's pruning check was not found; it lists every connection on each one opened");
  return out;
}
