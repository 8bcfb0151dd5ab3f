/**
 * libp2p's random walk (how relay discovery and AutoNAT look for peers) calls
 * `peerRouting.getClosestPeers` in a loop with no pause. When the DHTs end a lookup at once —
 * an empty routing table, with `allowQueryWithZeroPeers` (which a swarm of one needs) — the loop
 * runs on microtasks alone and starves the event loop, timers included: the walk's own time
 * limit never fires and the node hangs. No libp2p option paces it, so the host adds this peer
 * router: it finds nothing, and ends each lookup no sooner than `ms` after it began. libp2p
 * merges the routers' lookups, so peers the DHTs find still arrive at once; the walk just takes
 * at most one step per `ms`.
 */
import { NotFoundError, type PeerInfo, type PeerRouting } from '@libp2p/interface';

const WALK_STEP_MS = 2_000;

class WalkPacer implements PeerRouting {
  readonly #ms: number;

  constructor(ms: number) {
    this.#ms = ms;
  }

  readonly [Symbol.toStringTag] = 'cidx:walk-pacer';

  async findPeer(): Promise<PeerInfo> {
    throw new NotFoundError('the walk pacer finds no peers');
  }

  async *getClosestPeers(
    _key: Uint8Array,
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<PeerInfo> {
    const { signal } = options;
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.#ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

export function walkPacer(ms = WALK_STEP_MS): () => PeerRouting {
  return () => new WalkPacer(ms);
}
