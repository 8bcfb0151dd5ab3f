/**
 * The addresses at which other peers can reach this node: what the contacts of the communities
 * it creates default to. A node that serves the DHTs is dialable at its own addresses. A node
 * in client mode is not (it sits behind a NAT, or is a web page): its private-range addresses
 * (192.168/16, 10/8, loopback, …) lead nowhere for a peer elsewhere, so it is reached at its
 * relay (/p2p-circuit) addresses and at public addresses AutoNAT confirmed — libp2p advertises
 * a public address only once it is confirmed, so every public address listed here is.
 */
import { isPrivate } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import type { DhtMode } from './reachability.ts';

export function isCircuitAddr(addr: string): boolean {
  return addr.includes('/p2p-circuit');
}

/** An IP (or `localhost`) address in a private or reserved range, not through a relay. */
function isPrivateDirect(addr: string): boolean {
  if (isCircuitAddr(addr)) return false;
  try {
    return isPrivate(multiaddr(addr));
  } catch {
    return false;
  }
}

/**
 * The node's addresses (`getMultiaddrs`, each ending in /p2p/<id>) that others can dial, given
 * the mode its DHTs run in: all of them while it serves; else its relay addresses and its
 * confirmed public ones (possibly none: before its first relay reservation).
 */
export function dialableAddrs(addrs: readonly string[], dhtMode: DhtMode): string[] {
  if (dhtMode === 'server') return [...addrs];
  return addrs.filter((a) => !isPrivateDirect(a));
}
