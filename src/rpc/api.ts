/**
 * The JSON-RPC API of a node, shared by the server (which validates with these schemas) and the
 * typed client (which takes its parameter types from them). It imports zod and types only, so
 * the client never loads server code, libp2p or Node built-ins through it.
 */
import { z } from 'zod';
import type { ProfileJSON } from '../profile/profile.ts';

export type { ProfileJSON };

const id = z
  .string({ error: 'must be a community id (64 hex digits)' })
  .regex(/^[0-9a-f]{64}$/, { error: 'must be a community id (64 hex digits)' })
  .describe('community id, 64 hex digits');
/** An integer in [min, max], with the message the rest of cidx uses. */
const intIn = (min: number, max: number) => {
  const error = `must be an integer in [${min}, ${max}]`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const contacts = z
  .array(z.string({ error: 'must be a multiaddr string' }), {
    error: 'must be an array of multiaddrs',
  })
  .describe('contact multiaddrs (default: this node’s addresses)');
/**
 * A profile: checked in full by the profile parser (every rule, the node's size limits) once the
 * rest of the params passed, so its errors name the field inside the profile.
 */
const profile = z
  .custom<ProfileJSON>()
  .describe('profile JSON {"weights":{…},"relations"?:[[a,b,rel],…]}');
const notify = intIn(0, 1000).describe('similar communities to notify (default: the swarm’s l)');

export const paramSchemas = {
  'node.info': z.strictObject({}).optional(),
  'node.peers': z.strictObject({}).optional(),
  'community.create': z.strictObject({
    profile,
    contacts: contacts.optional(),
    notify: notify.optional(),
  }),
  'community.update': z.strictObject({
    id,
    profile,
    contacts: contacts.optional(),
    notify: notify.optional(),
  }),
  'community.dissolve': z.strictObject({ id }),
  'community.get': z.strictObject({ id }),
  'community.list': z.strictObject({}).optional(),
  'community.search': z.strictObject({
    profile,
    k: intIn(1, 1000).describe('results wanted (default: the swarm’s k)').optional(),
  }),
  'community.join': z.strictObject({
    profile,
    minFreq: z
      .number({ error: 'must be a number >= 0' })
      .min(0, { error: 'must be a number >= 0' })
      .describe('relations below this are pruned when splitting interests')
      .optional(),
    minSize: intIn(1, 1_000_000).describe('smallest interest kept (attributes)').optional(),
    k: intIn(1, 1000).describe('candidates per interest').optional(),
  }),
  'notifications.list': z
    .strictObject({
      since: intIn(0, Number.MAX_SAFE_INTEGER)
        .describe('only notifications with a larger seq')
        .optional(),
    })
    .optional(),
  stats: z.strictObject({}).optional(),
  'node.republish': z.strictObject({}).optional(),
} as const;

export type MethodName = keyof typeof paramSchemas;
export const METHOD_NAMES = Object.keys(paramSchemas) as MethodName[];

/** What each method does, for `cidx call --list` and the docs. */
export const METHOD_HELP: Record<MethodName, string> = {
  'node.info':
    'identity, addresses, reachability and DHT mode, swarm parameters, peers and what the node stores',
  'node.peers': 'the peer ids in each DHT routing table, and the open connections',
  'community.create': 'create a community owned by this node; notifies similar ones',
  'community.update': 'a new profile (and contacts) for a community this node owns',
  'community.dissolve': 'dissolve a community this node owns',
  'community.get': 'a community by id, with its profile and contacts',
  'community.list': 'the communities this node owns',
  'community.search': 'the communities most similar to a profile, best first',
  'community.join': 'the best community for each interest of a profile',
  'notifications.list': 'notifications received (new or changed similar communities)',
  stats: 'counters: RPC calls, requests, messages and bytes, wire traffic per protocol, lookups',
  'node.republish': 'republish now every community and tombstone this node owns (one round)',
};

/** The params a method accepts (undefined where they may be left out). */
export type MethodParams<M extends MethodName> = z.input<(typeof paramSchemas)[M]>;

/** A search result: a community with its similarity to the profile and its contacts. */
export interface CommunityMatch {
  id: string;
  similarity: number;
  contacts: string[];
  version: number;
}

export interface ChangeResult {
  id: string;
  version: number;
  similar: { id: string; similarity: number }[];
  notified: number;
  keys: { stored: number; failed: number };
}

export interface StoredCounts {
  descriptors: number;
  keys: number;
  contacts: number;
  tombstones: number;
  bytes: number;
}

/** How profiles are indexed: one key per attribute, or n min-hash LSH keys. */
export type IndexParams =
  | { mode: 'attribute' }
  | { mode: 'lsh'; n: number; m: number; seed: string; family?: string; bits?: number };

export interface SwarmParamsJSON {
  index: IndexParams;
  k: number;
  l: number;
  s: number;
  replicas: number;
}

export interface NodeInfoResult {
  peerId: string;
  addrs: string[];
  /** Whether others can dial this node; `unknown` until a peer confirms it (or never, on a LAN). */
  reachability: 'public' | 'private' | 'unknown';
  /** The mode both DHTs run in: a `server` is in routing tables and stores its share. */
  dhtMode: 'server' | 'client';
  index: IndexParams;
  peers: { profiles: number; addresses: number; connections: number; foreign: number };
  stored: StoredCounts;
  swarm: SwarmParamsJSON;
  owned: number;
  inbox: number;
}

export interface NodePeersResult {
  /** Peer ids in each DHT's routing table (a node in client mode is in none). */
  routing: { profiles: string[]; addresses: string[] };
  /** Open connections; `limited`: through a relay, within its time and data bounds. */
  connections: {
    peer: string;
    addr: string;
    direction: 'inbound' | 'outbound';
    limited: boolean;
  }[];
}

/** A notification: a community similar to one of this node's was created or changed. */
export interface NotificationJSON {
  seq: number;
  kind: 'created' | 'updated';
  community: { id: string; version: number; profile: ProfileJSON };
  similarity: number;
  /** The community of this node's it is similar to. */
  for: string;
  receivedAt: string;
}

export interface Traffic {
  messages: number;
  bytes: number;
}

/** Traffic of one libp2p protocol this node sent: streams it opened, messages and bytes. */
export interface WireTraffic extends Traffic {
  streams: number;
}

/** What a node process counts besides its RPC calls (absent from nodes run as a library). */
export interface NodeCountersJSON {
  /**
   * Sent by this node, per libp2p protocol id (both DHTs, identify, ping, cidx, …), counted
   * above the muxer: payload bytes, without yamux frames, noise or TCP.
   */
  wire: Record<string, WireTraffic>;
  /** DHT lookups this node made: how many, and their queries, hops and time (ms) in total. */
  lookups: { count: number; messages: number; hops: number; ms: number };
  /**
   * Searches this node made, and their requests, distinct peers, repeat queries, keys
   * dropped on the search quorum (`limits.searchQuorum`) and keys answered by routed reads
   * (`limits.routeHops`) in total.
   */
  searches: {
    count: number;
    requests: number;
    peers: number;
    repeatQueries: number;
    keysDropped: number;
    keysRouted: number;
  };
  /** Notifications this node's inbox accepted (duplicates dropped). */
  notifications: { received: number };
}

export interface StatsResult extends Partial<NodeCountersJSON> {
  uptimeMs: number;
  rpc: { calls: Record<string, number>; errors: Record<string, number> };
  requests: { sent: number; served: number };
  messages: { sent: Traffic; received: Traffic };
  protocols: Record<string, Record<string, Traffic>>;
  stored: StoredCounts;
}

/** One republish round: communities and tombstones put back, keys that could not be stored. */
export interface RepublishResult {
  communities: number;
  tombstones: number;
  failedKeys: number;
}

/** The result of each method. */
export interface MethodResults {
  'node.info': NodeInfoResult;
  'node.peers': NodePeersResult;
  'community.create': ChangeResult;
  'community.update': ChangeResult;
  'community.dissolve': { id: string; dissolved: true };
  'community.get': {
    id: string;
    version: number;
    profile: ProfileJSON;
    contacts: string[];
    owned: boolean;
  };
  'community.list': { communities: { id: string; version: number | undefined }[] };
  'community.search': { results: CommunityMatch[] };
  'community.join': {
    interests: { profile: ProfileJSON; community: CommunityMatch | null }[];
  };
  'notifications.list': { notifications: NotificationJSON[] };
  stats: StatsResult;
  'node.republish': RepublishResult;
}
export type MethodResult<M extends MethodName> = MethodResults[M];

/** The JSON-RPC error codes of the public contract. */
export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  notOwner: -32001,
  unknownCommunity: -32004,
  network: -32010,
} as const;
