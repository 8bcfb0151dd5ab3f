/**
 * Routing-table pings of peers that have just answered, answered from memory.
 *
 * kad-dht (16.x) pings a peer before it adds it to a routing table, and pings old contacts of a
 * full bucket before it keeps them. Every peer it offers its table comes through
 * `queueRoutingTableUpdate`, for one of three reasons: the peer has just answered one of its
 * queries, identify has just completed on a new connection to it, or another peer named it in
 * an answer. In the first two the peer proved it is alive a moment ago, over a connection still
 * open, and the ping that follows (a new stream, two protocol negotiations, 32 bytes each way)
 * tells nothing new: on a 500-node swarm these pings were a third of every search's messages
 * (docs/BENCHMARKS.md).
 *
 * So a node notes when kad-dht offered it each connected peer, and for `freshMs` after that
 * answers kad-dht's ping of that peer as a successful one (and tells kad-dht's closest-peer
 * tagger, as a real ping would); older evidence, or none (peers loaded from the peer store at
 * start, old contacts not heard from since, peers whose every connection has closed since),
 * gets the real ping. A peer only named by another — no connection to it — is no evidence of
 * anything: a peer that answers may name peers long gone, or peers that never were. Such an
 * offer gets kad-dht's own ping before it can enter the table. (Dropping it instead saved the
 * pings but left a small swarm's tables without the peers its lookups never met:
 * docs/BENCHMARKS.md, "Routing tables take a named peer only after it answers".) kad-dht has
 * no option for this; reached through its internals, checked by `kadInternalsMissing`, and
 * left alone if their shape changes. Upstream, the natural fix is for the k-bucket to take the
 * time a contact was last heard from instead of `lastPing: 0`.
 */
import type { PeerId } from '@libp2p/interface';
import { RecentPeers } from './recent-peers.ts';

/** Evidence that peers are alive: when each was last offered to the routing table. */
export class FreshContacts {
  readonly #heard: RecentPeers;
  /** Pings answered from memory, and pings that went to the network. */
  readonly pings = { skipped: 0, sent: 0 };
  /** Offers of peers only named by others, not connected: left to kad-dht's ping. */
  namedOnly = 0;

  readonly freshMs: number;

  constructor(freshMs: number, now: () => number = performance.now.bind(performance)) {
    this.freshMs = freshMs;
    this.#heard = new RecentPeers(now);
  }

  heard(peer: PeerId): void {
    this.#heard.note(peer);
  }

  /** The evidence ends with the last connection to the peer: it may have left since. */
  forget(peer: PeerId): void {
    this.#heard.forget(peer);
  }

  isFresh(peer: PeerId): boolean {
    const since = this.#heard.sinceMs(peer);
    return since !== undefined && since <= this.freshMs;
  }
}

interface Contact {
  peerId: PeerId;
}

interface RoutingTableInternals {
  queueRoutingTableUpdate?: (peerId: PeerId, options?: unknown) => void;
  pingContact?: (contact: Contact, options?: unknown) => Promise<boolean>;
  safeDispatchEvent?: (type: string, init: { detail: PeerId }) => boolean;
}

function routingTable(dht: unknown): RoutingTableInternals | undefined {
  return (dht as { routingTable?: RoutingTableInternals }).routingTable;
}

/** Whether the DHT has the two methods `answerFreshPings` replaces. */
export function freshPingsReachable(dht: unknown): boolean {
  const rt = routingTable(dht);
  return (
    typeof rt?.queueRoutingTableUpdate === 'function' &&
    typeof rt.pingContact === 'function' &&
    typeof rt.safeDispatchEvent === 'function'
  );
}

/**
 * Makes the DHT's routing table answer pings of peers offered to it within `fresh.freshMs` from
 * memory — of peers `connected` says it held a connection to when offered. False (and nothing
 * changed) if kad-dht's internals are not where 16.x keeps them, or if `freshMs` is 0 (every
 * ping goes to the network, as kad-dht does alone).
 */
export function answerFreshPings(
  dht: unknown,
  fresh: FreshContacts,
  connected: (peer: PeerId) => boolean,
): boolean {
  if (fresh.freshMs <= 0 || !freshPingsReachable(dht)) return false;
  const rt = routingTable(dht) as Required<RoutingTableInternals>;
  const queue = rt.queueRoutingTableUpdate.bind(rt);
  const ping = rt.pingContact.bind(rt);
  rt.queueRoutingTableUpdate = (peerId, options) => {
    // Only named by another: no evidence, so kad-dht's own ping decides.
    if (connected(peerId)) fresh.heard(peerId);
    else fresh.namedOnly++;
    queue(peerId, options);
  };
  rt.pingContact = async (contact, options) => {
    if (!fresh.isFresh(contact.peerId)) {
      fresh.pings.sent++;
      return ping(contact, options);
    }
    fresh.pings.skipped++;
    rt.safeDispatchEvent('peer:ping', { detail: contact.peerId });
    return true;
  };
  return true;
}
