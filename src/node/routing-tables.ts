import type { IdentifyResult, PeerId } from '@libp2p/interface';
import { kadInternalsMissing, routingTablePeers, routingTableSize } from '../net/kad-internals.ts';
import { ADDRESSES_DHT_PROTOCOL, type CidxLibp2p, PROFILES_DHT_PROTOCOL } from '../net/libp2p.ts';
import type { DhtName } from './network.ts';

const PROTOCOLS: Record<DhtName, string> = {
  profiles: PROFILES_DHT_PROTOCOL,
  addresses: ADDRESSES_DHT_PROTOCOL,
};

/**
 * How many peers each DHT's routing table holds, and a wait until both hold some. From kad-dht's
 * routing table while it exposes its size; if an upgrade takes it away, from identify instead
 * (the connected peers that speak the DHT's protocol, which kad-dht adds to its table as they
 * are identified), after a warning at start — never a start that silently waits out the whole
 * lookup timeout.
 */
export class RoutingTables {
  readonly #libp2p: CidxLibp2p;
  /** Connected peers per DHT protocol, from identify: only kept when the size is unreadable. */
  readonly #speakers: Record<DhtName, Set<string>> = { profiles: new Set(), addresses: new Set() };
  #fallback = false;
  #changed: (() => void) | undefined;

  readonly #onIdentify = (evt: CustomEvent<IdentifyResult>) => {
    for (const dht of ['profiles', 'addresses'] as const)
      if (evt.detail.protocols.includes(PROTOCOLS[dht]))
        this.#speakers[dht].add(evt.detail.peerId.toString());
    this.#changed?.();
  };
  readonly #onDisconnect = (evt: CustomEvent<PeerId>) => {
    for (const set of Object.values(this.#speakers)) set.delete(evt.detail.toString());
  };

  constructor(libp2p: CidxLibp2p) {
    this.#libp2p = libp2p;
  }

  /**
   * Checks what of kad-dht's insides is there (before the host starts dialling) and returns a
   * warning for each part missing; without the sizes, starts counting from identify.
   */
  start(opts: { simulation: boolean; ownPathDepth?: number | undefined }): string[] {
    const { profiles, addresses } = this.#libp2p.services;
    const missing = kadInternalsMissing({ profiles, addresses }, opts);
    this.#fallback = [profiles, addresses].some(
      (d) => routingTableSize(d) === undefined || routingTablePeers(d) === undefined,
    );
    if (this.#fallback) {
      this.#libp2p.addEventListener('peer:identify', this.#onIdentify);
      this.#libp2p.addEventListener('peer:disconnect', this.#onDisconnect);
    }
    return missing;
  }

  stop(): void {
    this.#libp2p.removeEventListener('peer:identify', this.#onIdentify);
    this.#libp2p.removeEventListener('peer:disconnect', this.#onDisconnect);
    this.#changed?.();
  }

  size(dht: DhtName): number {
    return (
      (this.#fallback ? undefined : routingTableSize(this.#libp2p.services[dht])) ??
      this.#speakers[dht].size
    );
  }

  /** The peer ids in the DHT's routing table (from identify if kad-dht hides them). */
  peers(dht: DhtName): string[] {
    return (
      (this.#fallback ? undefined : routingTablePeers(this.#libp2p.services[dht])) ?? [
        ...this.#speakers[dht],
      ]
    );
  }

  /** Resolves once both DHTs know a peer, or at `deadline` (Date.now() ms), whichever is first. */
  async waitForPeers(deadline: number): Promise<void> {
    const ready = () => this.size('profiles') > 0 && this.size('addresses') > 0;
    if (!this.#fallback) {
      // kad-dht publishes no event for a routing-table change: its size is polled, briefly.
      while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return;
    }
    if (ready()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#changed = () => {
        if (!ready() && Date.now() < deadline && this.#libp2p.status === 'started') return;
        this.#changed = undefined;
        done();
      };
    });
  }
}
