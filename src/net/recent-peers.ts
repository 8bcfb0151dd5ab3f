/**
 * When each of a bounded number of peers was last seen doing something (answering, refusing),
 * on an injected clock; the oldest is forgotten first. What the routing tables' fresh contacts
 * (fresh-contacts.ts) and the refusal backoff (refusal-backoff.ts) each remember.
 */
import type { PeerId } from '@libp2p/interface';

/** Peers remembered at most, by default. */
export const MAX_RECENT_PEERS = 4096;

export class RecentPeers {
  readonly #at = new Map<string, number>();
  readonly now: () => number;
  readonly #max: number;

  constructor(now: () => number = performance.now.bind(performance), max = MAX_RECENT_PEERS) {
    this.now = now;
    this.#max = max;
  }

  /** Notes the peer now, as the newest. */
  note(peer: PeerId): void {
    const id = peer.toString();
    this.#at.delete(id);
    this.#at.set(id, this.now());
    if (this.#at.size > this.#max) {
      const oldest = this.#at.keys().next();
      if (oldest.done !== true) this.#at.delete(oldest.value);
    }
  }

  forget(peer: PeerId): void {
    this.#at.delete(peer.toString());
  }

  /** How long ago the peer was noted (ms), if it is remembered. */
  sinceMs(peer: PeerId): number | undefined {
    const at = this.#at.get(peer.toString());
    return at === undefined ? undefined : this.now() - at;
  }
}
