/**
 * libp2p 3.3 writes the peer store for every stream: once a protocol is agreed on, both ends
 * merge it into the other peer's record (`protocols: [protocol]`) — a lock, a read, a decoded
 * and re-encoded record and a write — although after the first stream of a protocol the record
 * already holds it. Measured (docs/BENCHMARKS.md, "What a new connection and a stream cost"):
 * the two merges were over a third of what a request and its answer allocate.
 *
 * The connections are handed a peer store whose `merge` of one protocol the record is known to
 * hold, for a connected peer, returns that record without writing: known from the last merge
 * that went through (a merge that raced a `peer:update` is not trusted) or from the last
 * `peer:update` libp2p dispatched for it, forgotten at disconnect. Such a merge still goes
 * through once every `REWRITE_MS`, so the record's last-update time, by which the peer store
 * expires records after hours, stays fresh. Every other call goes to the real peer store. No option
 * of libp2p does this.
 */
import type { Peer, PeerId, PeerStore } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { hasPeerStoreView, withPeerStoreView } from './store-view.ts';

/** A connected peer's record, written through at least this often (ms). */
export const REWRITE_MS = 10 * 60_000;
const SKIPS_KNOWN = Symbol('cidx.skipsKnownProtocols');

interface Known {
  peer: Peer;
  protocols: Set<string>;
  writtenAt: number;
}
interface HostInsides {
  components?: { upgrader?: { components?: Record<string, unknown> & { peerStore?: PeerStore } } };
}

function upgraderOf(host: Libp2p) {
  return (host as unknown as HostInsides).components?.upgrader;
}

/** Installs it on the host's connections (before start: connections take it as they open). */
export function streamsSkipKnownProtocols(host: Libp2p, now: () => number = Date.now): void {
  const upgrader = upgraderOf(host);
  const components = upgrader?.components;
  const store = components?.peerStore;
  if (upgrader === undefined || components === undefined || typeof store?.merge !== 'function')
    return;
  const known = new Map<string, Known>();
  // Merges under way, with the updates dispatched meanwhile.
  const merging = new Map<string, { updates: number; done: Promise<unknown> }>();
  host.addEventListener('peer:update', (e) => {
    const key = e.detail.peer.id.toString();
    // Dispatched as the record is written: it is the record now (identify's write of a new
    // connection's peer, mostly, so its first streams find their protocols known).
    const k = known.get(key);
    if (k !== undefined) {
      k.peer = e.detail.peer;
      k.protocols = new Set(e.detail.peer.protocols);
      k.writtenAt = now();
    } else if (host.getConnections(e.detail.peer.id).length > 0) {
      const peer = e.detail.peer;
      known.set(key, { peer, protocols: new Set(peer.protocols), writtenAt: now() });
    }
    const m = merging.get(key);
    if (m !== undefined) m.updates++;
  });
  host.addEventListener('peer:disconnect', (e) => known.delete(e.detail.toString()));
  const merge = async (
    peerId: PeerId,
    data: Parameters<PeerStore['merge']>[1],
    options?: Parameters<PeerStore['merge']>[2],
  ): Promise<Peer> => {
    const one = data.protocols?.length === 1 && Object.keys(data).length === 1;
    if (!one) return store.merge(peerId, data, options);
    const key = peerId.toString();
    const protocol = data.protocols?.[0] as string;
    const holding = () => {
      const k = known.get(key);
      return k?.protocols.has(protocol) && now() - k.writtenAt < REWRITE_MS ? k.peer : undefined;
    };
    const held = holding();
    if (held !== undefined) return held;
    const under = merging.get(key);
    if (under !== undefined) {
      // The streams a new connection opens at once: the first one's merge decides for all.
      await under.done.catch(() => {});
      return holding() ?? store.merge(peerId, data, options);
    }
    const done = store.merge(peerId, data, options);
    const m = { updates: 0, done };
    merging.set(key, m);
    try {
      const peer = await done;
      if (m.updates === 0 && host.getConnections(peerId).length > 0)
        known.set(key, { peer, protocols: new Set(peer.protocols), writtenAt: now() });
      return peer;
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
