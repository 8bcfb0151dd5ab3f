/**
 * What a host runs in a web page (the browser build puts this file in place of platform.ts):
 * WebSockets to reach nodes, relays to be reached. A page cannot listen, so it has no NAT
 * services but identify push: nobody can dial it back for AutoNAT, hole punching TCP is out of its reach, and it
 * relays for nobody.
 */
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2';
import { identifyPush } from '@libp2p/identify';
import type { ConnectionGater } from '@libp2p/interface';
import { webSockets } from '@libp2p/websockets';
import type { ReachabilityMode } from './reachability.ts';
import type { RelaySettings } from './relay.ts';

export type HostTransport = 'tcp' | 'memory' | 'websockets';

// biome-ignore lint/suspicious/noExplicitAny: a list of heterogeneous libp2p factories
export type Factory = (components: any) => any;

export function transports(kind: HostTransport): Factory[] {
  if (kind !== 'websockets')
    throw new Error(`the ${kind} transport is not available in a browser; use websockets`);
  return [webSockets(), circuitRelayTransport({ reservationCompletionTimeout: 10_000 })];
}

/** Connected peers learn our new /p2p-circuit addresses as soon as a reservation is made. */
export function natServices(
  _kind: HostTransport,
  _mode: ReachabilityMode,
  _relay: RelaySettings,
): Record<string, Factory> {
  return { identifyPush: identifyPush() };
}

/**
 * libp2p's browser default refuses plain /ws and private-range addresses. The page's own
 * mixed-content rules already refuse ws:// where it must (from an https page), and loopback and
 * LAN swarms are numbered in private ranges: dial what the browser lets us dial.
 */
export function connectionGater(): ConnectionGater | undefined {
  return { denyDialMultiaddr: () => false };
}
