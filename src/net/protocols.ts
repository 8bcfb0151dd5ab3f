/**
 * The libp2p protocols a cidx node speaks, and the short names reports give them
 * (`traffic.profiles_dht.bytes`). identify's and ping's ids are libp2p's defaults, which
 * @libp2p/identify and @libp2p/ping do not export.
 */
import { INDEX_PROTOCOL } from './codec.ts';

export const PROFILES_DHT_PROTOCOL = '/cidx/profiles/kad/1.0.0';
export const ADDRESSES_DHT_PROTOCOL = '/cidx/addresses/kad/1.0.0';
export const IDENTIFY_PROTOCOL = '/ipfs/id/1.0.0';
export const IDENTIFY_PUSH_PROTOCOL = '/ipfs/id/push/1.0.0';
export const PING_PROTOCOL = '/ipfs/ping/1.0.0';

const SHORT_NAMES: Record<string, string> = {
  [INDEX_PROTOCOL]: 'cidx',
  [PROFILES_DHT_PROTOCOL]: 'profiles_dht',
  [ADDRESSES_DHT_PROTOCOL]: 'addresses_dht',
  [IDENTIFY_PROTOCOL]: 'identify',
  [IDENTIFY_PUSH_PROTOCOL]: 'identify_push',
  [PING_PROTOCOL]: 'ping',
};

/** A protocol's short name: one of the above, or its id with every run of other characters as _. */
export function shortProtocolName(protocol: string): string {
  return SHORT_NAMES[protocol] ?? protocol.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '');
}
