import type { PeerId } from '@libp2p/interface';
import type { OkResponse, Request, RoutedRequest } from '../net/codec.ts';

export type DhtName = 'profiles' | 'addresses';

/**
 * What the requester algorithms need of the network, and no more: the peers closest to a key on
 * one of the two DHTs, and one request to one peer. A node runs it on libp2p (`Libp2pNetwork`);
 * unit tests and the loss-free model run it in memory (`MemoryNetwork`). Which peers to ask and
 * what to do when they fail or hold nothing is decided above it, in `Holders`.
 */
export interface Network {
  /** This node: a candidate of every key, answered in-process. */
  readonly self: PeerId;
  /**
   * The addresses others can dial this node at (a community's contacts when none are given);
   * empty while a node behind a NAT holds no relay reservation yet.
   */
  addrs(): string[];
  /** Every address this node has, dialable from elsewhere or not. */
  ownAddrs(): string[];
  /**
   * The peers closest to `key` on the DHT, closest first, this node among them, less peers
   * known not to speak the cidx protocol. Throws when the lookup fails. `onHeard`, where the
   * lookup is iterative, receives the peers it hears of while it runs (none is promised to be
   * among the closest). `signal` ends the lookup early, with what it has (the caller drops it).
   */
  closestPeers(
    dht: DhtName,
    key: Uint8Array,
    onHeard?: (peers: PeerId[]) => void,
    signal?: AbortSignal,
  ): Promise<PeerId[]>;
  /**
   * Whether `peer` stopped answering as far as this node knows: its last request or dial ran
   * out, or a lookup gave up on it, and nothing was heard from it since. Such a peer is asked
   * after the others and gets no request sent ahead. Absent: every peer is presumed to answer.
   */
  unresponsive?(peer: PeerId): boolean;
  /**
   * A read routed over open connections to one of its key's replicas (src/net/route.ts); no
   * answer where the route reached none or failed, and undefined where nothing was sent (no
   * connected peer is closer to the key): the caller looks the key up instead. Absent: reads
   * always follow a lookup.
   */
  route?(req: RoutedRequest, signal?: AbortSignal): Promise<Routed | undefined>;
  /** One request, one answer; an error answer throws RemoteError, a lost peer any error. */
  send(peer: PeerId, req: Request): Promise<OkResponse>;
  /** One request to the peer a contact address names, reached at that address. */
  sendToAddr(addr: string, req: Request): Promise<OkResponse>;
}

/**
 * A routed read: the first hop it was sent to (this node, where it holds the key), and the
 * answer, if a replica gave one (who answered it, as the route says).
 */
export interface Routed {
  via: PeerId;
  answer?: { peer: PeerId; res: OkResponse };
}
