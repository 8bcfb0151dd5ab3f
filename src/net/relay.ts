/**
 * Circuit relay v2 settings: the slots a node that cannot be dialled reserves at relays, and the
 * bounds a public node's relay puts on what it carries for others.
 */
import { ParamsError } from '../keys/params.ts';

export interface RelaySettings {
  /**
   * Relay reservations a node that cannot be dialled holds (0: none). Each is one more path
   * to it; libp2p finds relays among the peers it meets that speak the hop protocol.
   */
  reservations: number;
  /** Reservations a public node's relay grants at once (0: it offers no relay). */
  maxReservations: number;
  /** How long a reservation lasts before the reserving node must refresh it (ms). */
  reservationTtlMs: number;
  /**
   * Longest life of one relayed connection (ms); the peers then reconnect or go direct. The
   * js-libp2p relay enforces it in ms and sends the same number to the reserving node, which
   * reads it as seconds: the bound that holds is the relay's.
   */
  durationLimitMs: number;
  /** Most bytes one relayed connection carries, both ways together. */
  dataLimitBytes: number;
}

export const DEFAULT_RELAY: RelaySettings = {
  reservations: 2,
  // libp2p's default is 15; a cidx relay mostly carries notifications, small and rare.
  maxReservations: 32,
  reservationTtlMs: 3_600_000,
  // go-libp2p's and js-libp2p's default for limited relayed connections.
  durationLimitMs: 120_000,
  // Two of the largest cidx frames (2 MiB each by default): libp2p's 128 KiB default would cut
  // a notification carrying a large profile.
  dataLimitBytes: 4 * 1024 * 1024,
};

/** Allowed range of each setting (inclusive). */
export const RELAY_RANGES: Record<keyof RelaySettings, [number, number]> = {
  reservations: [0, 8],
  maxReservations: [0, 10_000],
  reservationTtlMs: [60_000, 86_400_000],
  durationLimitMs: [1_000, 3_600_000],
  dataLimitBytes: [65_536, 1024 * 1024 * 1024],
};

/** Fills in defaults and checks ranges; throws ParamsError naming the setting. */
export function resolveRelay(r: Partial<RelaySettings> = {}): RelaySettings {
  const out = { ...DEFAULT_RELAY, ...r };
  for (const [k, [min, max]] of Object.entries(RELAY_RANGES)) {
    const v = out[k as keyof RelaySettings];
    if (!Number.isInteger(v) || v < min || v > max)
      throw new ParamsError(`relay.${k}`, `must be an integer from ${min} to ${max}`);
  }
  return out;
}
