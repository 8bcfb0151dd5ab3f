/**
 * What a host runs on Node.js: its transports and the services that deal with NAT. The browser
 * build replaces this file with platform.browser.ts (no TCP, no AutoNAT, no relay server).
 */
import { autoNATv2 } from '@libp2p/autonat-v2';
import { circuitRelayServer, circuitRelayTransport } from '@libp2p/circuit-relay-v2';
import { dcutr } from '@libp2p/dcutr';
import { identifyPush } from '@libp2p/identify';
import type { ConnectionGater } from '@libp2p/interface';
import { memory } from '@libp2p/memory';
import { tcp } from '@libp2p/tcp';
import { webSockets } from '@libp2p/websockets';
import type { ReachabilityMode } from './reachability.ts';
import type { RelaySettings } from './relay.ts';

export type HostTransport = 'tcp' | 'memory' | 'websockets';

// libp2p's factories take each its own components type; the host only passes them on.
// biome-ignore lint/suspicious/noExplicitAny: a list of heterogeneous libp2p factories
export type Factory = (components: any) => any;

/**
 * `tcp`: TCP and WebSockets (each listen address goes to the transport that matches it), and
 * dialling through relays (/p2p-circuit). `memory`: many nodes in one process. `websockets`:
 * WebSockets and relays only.
 */
export function transports(kind: HostTransport): Factory[] {
  if (kind === 'memory') return [memory()];
  const relayed = circuitRelayTransport({ reservationCompletionTimeout: 10_000 });
  return kind === 'tcp' ? [tcp(), webSockets(), relayed] : [webSockets(), relayed];
}

/**
 * NAT services on IP transports (none in-process: there is no NAT between memory
 * connections, and AutoNAT cannot test memory addresses):
 * - `autoNAT` (v2) tests our public addresses with peers and answers their tests — not in
 *   `private` mode, whose answer is declared;
 * - `identifyPush` tells connected peers at once when our addresses or protocols change (a
 *   relay reservation, a DHT switching to server mode), not at the next connection;
 * - `dcutr` turns a relayed connection into a direct one where hole punching works;
 * - `relay`: a declared public node relays for nodes that cannot be dialled, within bounds.
 */
export function natServices(
  kind: HostTransport,
  mode: ReachabilityMode,
  relay: RelaySettings,
): Record<string, Factory> {
  if (kind === 'memory') return {};
  const out: Record<string, Factory> = { identifyPush: identifyPush(), dcutr: dcutr() };
  if (mode !== 'private') out.autoNAT = autoNATv2();
  if (mode === 'public' && relay.maxReservations > 0) {
    out.relay = circuitRelayServer({
      reservations: {
        maxReservations: relay.maxReservations,
        reservationTtl: relay.reservationTtlMs,
        applyDefaultLimit: true,
        defaultDurationLimit: relay.durationLimitMs,
        defaultDataLimit: BigInt(relay.dataLimitBytes),
      },
    });
  }
  return out;
}

/** libp2p's Node.js default gater dials everything: nothing to change. */
export function connectionGater(): ConnectionGater | undefined {
  return undefined;
}
