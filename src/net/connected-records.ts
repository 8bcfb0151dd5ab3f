/**
 * The protocols and tags of every connected peer's peer-store record, as libp2p last wrote it or
 * as a read that no write raced returned it; forgotten when the peer disconnects. Two parts
 * answer from it what libp2p would otherwise read or write per connection and per stream: the
 * connection pruner's tags (connection-manager.ts) and the protocols a stream merges
 * (stream-protocols.ts). One copy per host, so a node holds one per connected peer, not one per
 * part; and only what those parts read: a whole record (addresses, metadata, the signed peer
 * record) is many times the size of those two fields, and the peers of a swarm name the same
 * protocols, which records share as one list (docs/BENCHMARKS.md, "What a simulated node
 * holds").
 *
 * A record is replaced by every `peer:update` libp2p dispatches as it writes one (the record
 * now). A call's answer is kept only if no update of that peer was dispatched while it ran (it
 * may hold the record from before) and the peer is still connected. libp2p dispatches nothing
 * when a record is deleted: a deleted connected peer's record is used until it disconnects.
 */
import type { Peer, PeerId } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';

export interface ConnectedRecord {
  /** The record's protocols: one frozen list for all records that name the same ones. */
  readonly protocols: readonly string[];
  readonly tags: Peer['tags'];
  /** When libp2p last wrote the record (ms), where that is known: absent if it was read. */
  readonly writtenAt?: number;
}

/** Lists of protocols records share; past the bound a record keeps a list of its own. */
const SHARED_LISTS = 256;
const lists = new Map<string, readonly string[]>();

/** The one frozen list of these protocols, in this order. */
export function sharedProtocols(protocols: readonly string[]): readonly string[] {
  const key = protocols.join('\n');
  const known = lists.get(key);
  if (known !== undefined) return known;
  const list = Object.freeze([...protocols]);
  if (lists.size < SHARED_LISTS) lists.set(key, list);
  return list;
}

function kept(peer: Peer, writtenAt: number | undefined): ConnectedRecord {
  const protocols = sharedProtocols(peer.protocols);
  return writtenAt === undefined
    ? { protocols, tags: peer.tags }
    : { protocols, tags: peer.tags, writtenAt };
}

type Host = Pick<Libp2p, 'getConnections' | 'addEventListener'>;

export class ConnectedRecords {
  readonly #records = new Map<string, ConnectedRecord>();
  /** Calls under way per peer, each marked when an update of the peer is dispatched. */
  readonly #calls = new Map<string, Set<{ raced: boolean }>>();
  readonly #host: Host;
  /** The clock of `writtenAt`. */
  readonly now: () => number;

  constructor(host: Host, now: () => number = Date.now) {
    this.#host = host;
    this.now = now;
    host.addEventListener('peer:update', (e) => {
      const peer = e.detail.peer;
      const key = peer.id.toString();
      for (const call of this.#calls.get(key) ?? []) call.raced = true;
      // A peer with a record is connected (records go at disconnect): no list to look up.
      if (this.#records.has(key) || this.#connected(peer.id))
        this.#records.set(key, kept(peer, this.now()));
    });
    host.addEventListener('peer:disconnect', (e) => this.#records.delete(e.detail.toString()));
  }

  /** The connected peer's protocols and tags, if known. */
  get(peerId: PeerId): ConnectedRecord | undefined {
    return this.#records.get(peerId.toString());
  }

  get size(): number {
    return this.#records.size;
  }

  /**
   * Runs `call`, a read (`wrote` false) or a write of the peer's record, and keeps the record it
   * returns unless an update raced it or the peer is not connected.
   */
  async through(peerId: PeerId, wrote: boolean, call: () => Promise<Peer>): Promise<Peer> {
    const key = peerId.toString();
    const mark = { raced: false };
    let calls = this.#calls.get(key);
    if (calls === undefined) {
      calls = new Set();
      this.#calls.set(key, calls);
    }
    calls.add(mark);
    try {
      const peer = await call();
      if (!mark.raced && this.#connected(peerId)) {
        const writtenAt = wrote ? this.now() : this.#records.get(key)?.writtenAt;
        this.#records.set(key, kept(peer, writtenAt));
      }
      return peer;
    } finally {
      calls.delete(mark);
      if (calls.size === 0) this.#calls.delete(key);
    }
  }

  #connected(peerId: PeerId): boolean {
    return this.#host.getConnections(peerId).length > 0;
  }
}

const byHost = new WeakMap<object, ConnectedRecords>();

/** The host's one tracker, made on first use (before start, so no update is missed). */
export function connectedRecords(host: Host): ConnectedRecords {
  let records = byHost.get(host);
  if (records === undefined) {
    records = new ConnectedRecords(host);
    byHost.set(host, records);
  }
  return records;
}
