/**
 * libp2p 3.3 writes the peer store for every stream: once a protocol is agreed on, both ends
 * merge it into the other peer's record (`protocols: [protocol]`) — a lock, a read, a decoded
 * and re-encoded record and a write — although after the first stream of a protocol the record
 * already holds it. Measured (docs/BENCHMARKS.md, "What a new connection and a stream cost"):
 * the two merges were over a third of what a request and its answer allocate.
 *
 * The connections are handed a peer store whose `merge` of one protocol the record is known to
 * hold, for a connected peer, returns without writing: known from the record libp2p last wrote
 * for it (connected-records.ts, shared with the connection pruner). What it then returns is the
 * record's protocols and tags, all that is kept of it: libp2p's connections await a stream's
 * merge for the write alone and never read its answer. Such a merge
 * still goes through once every `REWRITE_MS`, so the record's last-update time, by which the
 * peer store expires records after hours, stays fresh. Every other call goes to the real peer
 * store. No option of libp2p does this.
 */
import type { Peer, PeerId, PeerStore } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { connectedRecords } from './connected-records.ts';
import { hasPeerStoreView, withPeerStoreView } from './store-view.ts';

/** A connected peer's record, written through at least this often (ms). */
export const REWRITE_MS = 10 * 60_000;
const SKIPS_KNOWN = Symbol('cidx.skipsKnownProtocols');

interface HostInsides {
  components?: { upgrader?: { components?: Record<string, unknown> & { peerStore?: PeerStore } } };
}

function upgraderOf(host: Libp2p) {
  return (host as unknown as HostInsides).components?.upgrader;
}

/** Installs it on the host's connections (before start: connections take it as they open). */
export function streamsSkipKnownProtocols(host: Libp2p): void {
  const upgrader = upgraderOf(host);
  const components = upgrader?.components;
  const store = components?.peerStore;
  if (upgrader === undefined || components === undefined || typeof store?.merge !== 'function')
    return;
  const records = connectedRecords(host);
  // Merges under way: the streams a new connection opens at once wait for the first one's.
  const merging = new Map<string, Promise<Peer>>();
  const merge = async (
    peerId: PeerId,
    data: Parameters<PeerStore['merge']>[1],
    options?: Parameters<PeerStore['merge']>[2],
  ): Promise<Peer> => {
    const one = data.protocols?.length === 1 && Object.keys(data).length === 1;
    if (!one) return store.merge(peerId, data, options);
    const key = peerId.toString();
    const protocol = data.protocols?.[0] as string;
    const write = () => records.through(peerId, true, () => store.merge(peerId, data, options));
    const holding = () => {
      const r = records.get(peerId);
      return r?.writtenAt !== undefined &&
        records.now() - r.writtenAt < REWRITE_MS &&
        r.protocols.includes(protocol)
        ? ({ id: peerId, protocols: r.protocols, tags: r.tags } as unknown as Peer)
        : undefined;
    };
    const held = holding();
    if (held !== undefined) return held;
    const under = merging.get(key);
    if (under !== undefined) {
      await under.catch(() => {});
      return holding() ?? write();
    }
    const done = write();
    merging.set(key, done);
    try {
      return await done;
    } finally {
      merging.delete(key);
    }
  };
  upgrader.components = withPeerStoreView(components, store, { merge }, SKIPS_KNOWN);
}

/** Empty when the connections were handed the peer store above; else why not, in one line. */
export function streamsSkipKnownProtocolsMissing(host: Libp2p): string[] {
  return hasPeerStoreView(upgraderOf(host)?.components, SKIPS_KNOWN)
    ? []
    : ["libp2p's upgrader was not found; every stream writes its protocol to the peer store"];
}
