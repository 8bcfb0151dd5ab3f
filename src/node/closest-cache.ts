import type { PeerId } from '@libp2p/interface';
import type { DhtName } from './network.ts';

/** Caches at most this many keys' closest peers. */
const MAX_CACHED_KEYS = 1024;

/**
 * Recent lookup results by DHT and key: an operation that touches the same keys again soon
 * (search after create) may reuse them. Bounded; expired entries go first when it is full.
 */
export class ClosestCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { peers: PeerId[]; expires: number }>();

  /** `ttlMs` 0: nothing is kept. */
  constructor(ttlMs: number, now: () => number) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get(dht: DhtName, key: Uint8Array): PeerId[] | undefined {
    const hit = this.#entries.get(keyOf(dht, key));
    return hit !== undefined && hit.expires > this.#now() ? hit.peers : undefined;
  }

  set(dht: DhtName, key: Uint8Array, peers: PeerId[]): void {
    if (this.#ttlMs <= 0) return;
    const now = this.#now();
    if (this.#entries.size >= MAX_CACHED_KEYS) {
      for (const [k, v] of this.#entries) if (v.expires <= now) this.#entries.delete(k);
      while (this.#entries.size >= MAX_CACHED_KEYS)
        this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(keyOf(dht, key), { peers, expires: now + this.#ttlMs });
  }

  delete(dht: DhtName, key: Uint8Array): void {
    this.#entries.delete(keyOf(dht, key));
  }

  clear(): void {
    this.#entries.clear();
  }
}

function keyOf(dht: DhtName, key: Uint8Array): string {
  return `${dht}:${Buffer.from(key).toString('base64')}`;
}
