/**
 * Whether other peers can dial this node, and what follows from it: a node they can dial serves
 * both DHTs (server mode: it enters routing tables and holds its share of the index); a node
 * they cannot dial only queries them (client mode) and is reached through relays.
 *
 * The verdict comes from libp2p: AutoNAT (v2) asks peers to dial our public addresses back and
 * marks the ones that worked as verified in the address manager; this component reads the
 * address manager, never dials anything itself.
 */
import type { ComponentLogger, Libp2pEvents, Logger, Startable } from '@libp2p/interface';
import type { AddressManager, NodeAddress } from '@libp2p/interface-internal';
import type { KadDHT } from '@libp2p/kad-dht';
import { isNetworkAddress, isPrivate } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import { TypedEventEmitter, type TypedEventTarget } from 'main-event';
import { isCircuitAddr } from './contact-addrs.ts';

/**
 * What the operator declares: `public` (dialable: serve, offer a relay), `private` (not
 * dialable: client mode, reachable through relays), `auto` (let AutoNAT find out).
 */
export type ReachabilityMode = 'auto' | 'public' | 'private';
export type Reachability = 'public' | 'private' | 'unknown';
export type DhtMode = 'server' | 'client';

export { REACHABILITY_MODES } from '../settings/table.ts';

export interface ReachabilityState {
  reachability: Reachability;
  dhtMode: DhtMode;
}

export interface ReachabilityEvents {
  /** Reachability or DHT mode changed. */
  change: CustomEvent<ReachabilityState>;
  /** This node's /p2p-circuit addresses changed (a reservation was made, refreshed or lost). */
  'relay-addresses': CustomEvent<string[]>;
}

export interface ReachabilityInit {
  mode: ReachabilityMode;
  /**
   * The swarm is numbered in private ranges (see isPrivateSwarm): `auto` serves from the start,
   * since AutoNAT cannot judge such addresses and the swarm's peers reach us as they reach
   * each other.
   */
  privateSwarm: boolean;
  /** How often `auto` re-reads AutoNAT's verdicts (ms): a refusal emits no libp2p event. */
  recheckMs?: number;
}

interface Components {
  addressManager: AddressManager;
  events: TypedEventTarget<Libp2pEvents>;
  logger: ComponentLogger;
}

/** Declared public addresses stay confirmed this long: AutoNAT leaves confirmed ones alone. */
const DECLARED_TTL_MS = 365 * 24 * 3_600_000;

/**
 * True when every bootstrap address is an IP address in a private or reserved range (loopback,
 * 10/8, 192.168/16, 198.18/15, …), or there is none (this node starts a swarm; others join
 * through it). AutoNAT never confirms such addresses, so `auto` would otherwise leave every
 * loopback or LAN swarm in client mode, with nobody storing anything.
 */
export function isPrivateSwarm(bootstrap: readonly string[]): boolean {
  return bootstrap.every((a) => {
    try {
      return isPrivate(multiaddr(a));
    } catch {
      return false;
    }
  });
}

/**
 * AutoNAT's verdict on our public addresses, read from the address manager (pure).
 * - public: one public, non-relayed IP or DNS address is verified (AutoNAT confirmed it, or declared);
 * - private: AutoNAT refused one: a transport address unconfirmed until its retry time, or an
 *   observed address dropped without being confirmed (it was in `seen`, and is gone). The
 *   verdict holds until an address is confirmed;
 * - unknown: no verdict yet.
 * Returns the verdict and the public addresses to remember for the next call.
 */
export function judge(
  addrs: readonly Pick<NodeAddress, 'multiaddr' | 'verified' | 'expires'>[],
  seen: ReadonlySet<string>,
  now: number,
  previous: Reachability,
): { reachability: Reachability; seen: Set<string> } {
  // Only public IP or DNS addresses: AutoNAT tests nothing else (in-process /memory addresses
  // are advertised without a test, and prove nothing about the network).
  const candidates = addrs.filter(
    (a) =>
      isNetworkAddress(a.multiaddr) &&
      !isPrivate(a.multiaddr) &&
      !isCircuitAddr(a.multiaddr.toString()),
  );
  const present = new Set(candidates.map((a) => a.multiaddr.toString()));
  if (candidates.some((a) => a.verified)) return { reachability: 'public', seen: present };
  const refused = candidates.some((a) => a.expires > now);
  const dropped = [...seen].some((a) => !present.has(a));
  const reachability = refused || dropped || previous === 'private' ? 'private' : 'unknown';
  return { reachability, seen: present };
}

/**
 * A libp2p service that keeps both DHTs in the mode the node's reachability calls for and tells
 * listeners when its reachability or its relay addresses change.
 */
export class ReachabilityService
  extends TypedEventEmitter<ReachabilityEvents>
  implements Startable
{
  readonly mode: ReachabilityMode;
  readonly privateSwarm: boolean;
  readonly #c: Components;
  readonly #log: Logger;
  readonly #recheckMs: number;
  #dhts: KadDHT[] = [];
  #reachability: Reachability;
  #dhtMode: DhtMode;
  #seen = new Set<string>();
  #relayAddrs: string[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #applying: Promise<void> = Promise.resolve();

  constructor(components: Components, init: ReachabilityInit) {
    super();
    this.#c = components;
    this.#log = components.logger.forComponent('cidx:reachability');
    this.mode = init.mode;
    this.privateSwarm = init.privateSwarm;
    this.#recheckMs = init.recheckMs ?? 10_000;
    this.#reachability = init.mode === 'auto' ? 'unknown' : init.mode;
    this.#dhtMode = initialDhtMode(init.mode, init.privateSwarm);
  }

  readonly [Symbol.toStringTag] = 'cidx:reachability';

  /** Whether other peers can dial this node. */
  get reachability(): Reachability {
    return this.#reachability;
  }

  /** The mode both DHTs run in. */
  get dhtMode(): DhtMode {
    return this.#dhtMode;
  }

  /** This node's /p2p-circuit addresses (empty without a relay reservation). */
  get relayAddrs(): string[] {
    return [...this.#relayAddrs];
  }

  /** The DHTs whose mode this service sets (the host hands them over before start). */
  attach(dhts: KadDHT[]): void {
    this.#dhts = dhts;
  }

  start(): void {}

  afterStart(): void {
    this.#c.events.addEventListener('self:peer:update', this.#onUpdate);
    this.#c.events.addEventListener('transport:listening', this.#onListening);
    if (this.mode === 'public') this.#confirmDeclared();
    if (this.mode === 'auto') {
      this.#timer = setInterval(() => this.#judge(), this.#recheckMs);
      (this.#timer as { unref?: () => void }).unref?.();
      this.#judge();
    }
  }

  async stop(): Promise<void> {
    this.#c.events.removeEventListener('self:peer:update', this.#onUpdate);
    this.#c.events.removeEventListener('transport:listening', this.#onListening);
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#applying;
  }

  readonly #onUpdate = (): void => {
    this.#readRelayAddrs();
    if (this.mode === 'auto') this.#judge();
  };

  readonly #onListening = (): void => {
    if (this.mode === 'public') this.#confirmDeclared();
    this.#readRelayAddrs();
  };

  /**
   * A declared public node's listen addresses are dialable by declaration: confirm them (the
   * call AutoNAT makes on success), so that public ones are advertised at once — libp2p hides
   * an unverified public address — and AutoNAT does not test them.
   */
  #confirmDeclared(): void {
    for (const a of this.#c.addressManager.getAddressesWithMetadata()) {
      // Private-range and non-IP addresses are advertised without verification.
      if (a.type !== 'transport' || a.verified || isCircuitAddr(a.multiaddr.toString())) continue;
      this.#c.addressManager.confirmObservedAddr(a.multiaddr, {
        type: 'transport',
        ttl: DECLARED_TTL_MS,
      });
    }
  }

  #readRelayAddrs(): void {
    const now = this.#c.addressManager.getAddresses().map(String).filter(isCircuitAddr).sort();
    if (now.length === this.#relayAddrs.length && now.every((a, i) => a === this.#relayAddrs[i]))
      return;
    this.#relayAddrs = now;
    this.safeDispatchEvent('relay-addresses', { detail: [...now] });
  }

  #judge(): void {
    const verdict = judge(
      this.#c.addressManager.getAddressesWithMetadata(),
      this.#seen,
      Date.now(),
      this.#reachability,
    );
    this.#seen = verdict.seen;
    const dhtMode: DhtMode =
      verdict.reachability === 'public' || this.privateSwarm ? 'server' : 'client';
    if (verdict.reachability === this.#reachability && dhtMode === this.#dhtMode) return;
    this.#log('reachability %s → %s', this.#reachability, verdict.reachability);
    this.#reachability = verdict.reachability;
    const modeChanged = dhtMode !== this.#dhtMode;
    this.#dhtMode = dhtMode;
    if (modeChanged) {
      // One change after another: a quick flip must not leave the DHTs in the older mode.
      this.#applying = this.#applying.then(() =>
        Promise.all(this.#dhts.map((d) => d.setMode(dhtMode)))
          .then(() => {})
          .catch((err) => this.#log.error('setting dht mode %s - %e', dhtMode, err)),
      );
    }
    const state = { reachability: this.#reachability, dhtMode };
    void this.#applying.then(() => this.safeDispatchEvent('change', { detail: state }));
  }
}

/** The mode both DHTs start in: `auto` serves only in a private-range swarm until confirmed. */
export function initialDhtMode(mode: ReachabilityMode, privateSwarm: boolean): DhtMode {
  if (mode === 'public') return 'server';
  if (mode === 'private') return 'client';
  return privateSwarm ? 'server' : 'client';
}

export function reachabilityService(
  init: ReachabilityInit,
): (components: Components) => ReachabilityService {
  return (components) => new ReachabilityService(components, init);
}
