/**
 * Identify answers every request with the node's signed peer record, and libp2p 3.3 never keeps
 * that record: its identify service seals a new one — an Ed25519 signature over a fresh
 * sequence number — for every connection that opens, and the peer at the other end, finding a
 * newer number than the one it holds, rewrites the node's peer-store record and dispatches a
 * `peer:update` for a record that changed in nothing but the signature. A swarm larger than a
 * node's connection limit opens connections on every search (docs/BENCHMARKS.md, "What a new
 * connection and a stream cost"), so this is work per message that grows with the swarm.
 *
 * Here identify is handed a peer store whose read of the node's own record carries one sealed
 * record per set of addresses: sealed again, with a new sequence number, as soon as the
 * addresses identify would announce differ from those it holds — the same record libp2p would
 * send, signed once instead of per connection (go-libp2p keeps its record the same way). Every
 * other call goes to the real peer store. No option of libp2p or identify does this.
 */
import type { PeerId, PeerStore, PrivateKey } from '@libp2p/interface';
import { PeerRecord, RecordEnvelope } from '@libp2p/peer-record';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { Libp2p } from 'libp2p';
import { hasPeerStoreView, withPeerStoreView } from './store-view.ts';

/** multiaddr's code of /p2p: identify strips it from the addresses it signs. */
const CODE_P2P = 421;
const SEALED_ONCE = Symbol('cidx.sealedOnce');

interface IdentifyInsides {
  components?: Record<string, unknown> & { peerStore?: PeerStore };
}
interface HostInsides {
  components?: {
    peerId: PeerId;
    privateKey: PrivateKey;
    addressManager: { getAddresses(): Multiaddr[] };
  };
}

/** The node's signed peer record for its current addresses; undefined without addresses. */
export class SelfRecord {
  readonly #c: NonNullable<HostInsides['components']>;
  #sealed: { key: string; bytes: Promise<Uint8Array> } | undefined;

  constructor(components: NonNullable<HostInsides['components']>) {
    this.#c = components;
  }

  /** Sealed again only when the addresses (as identify announces them) change. */
  current(): Promise<Uint8Array> | undefined {
    const addrs = this.#c.addressManager.getAddresses().map((a) => a.decapsulateCode(CODE_P2P));
    if (addrs.length === 0) return undefined;
    const key = addrs.map((a) => a.toString()).join(' ');
    if (this.#sealed?.key !== key) {
      const record = new PeerRecord({ peerId: this.#c.peerId, multiaddrs: addrs });
      const bytes = RecordEnvelope.seal(record, this.#c.privateKey).then((e) => e.marshal());
      // A seal that fails is not kept: the next request seals again.
      bytes.catch(() => {
        if (this.#sealed?.bytes === bytes) this.#sealed = undefined;
      });
      this.#sealed = { key, bytes };
    }
    return this.#sealed.bytes;
  }
}

/** Hands the host's identify service the peer store above (before or after start). */
export function identifySealsOnce(host: Libp2p): void {
  const c = (host as unknown as HostInsides).components;
  const identify = (host.services as Record<string, unknown>).identify as
    | IdentifyInsides
    | undefined;
  const components = identify?.components;
  const store = components?.peerStore;
  if (c === undefined || identify === undefined || components === undefined) return;
  if (typeof store?.get !== 'function') return;
  const self = new SelfRecord(c);
  const get: PeerStore['get'] = async (peerId, options) => {
    const peer = await store.get(peerId, options);
    if (!peerId.equals(c.peerId) || peer.peerRecordEnvelope != null) return peer;
    const sealed = self.current();
    return sealed === undefined ? peer : { ...peer, peerRecordEnvelope: await sealed };
  };
  identify.components = withPeerStoreView(components, store, { get }, SEALED_ONCE);
}

/** Empty when identify was handed the peer store above; else why not, in one line. */
export function identifySealsOnceMissing(host: Libp2p): string[] {
  const identify = (host.services as Record<string, unknown>).identify as
    | IdentifyInsides
    | undefined;
  return hasPeerStoreView(identify?.components, SEALED_ONCE)
    ? []
    : ["libp2p's identify service was not found; it signs a new peer record per connection"];
}
