/**
 * cidx in a web page (`cidx/browser`, bundled into dist/browser.js): the same CidxNode as a
 * process runs, on WebSockets, with a DHT in client mode and its state in memory. A page cannot
 * be dialled, so it reserves slots at relays (public nodes) and its only addresses — the
 * contacts of the communities it creates — are /p2p-circuit addresses through them.
 */
import type { SwarmParams } from '../index/swarm.ts';
import type { RelaySettings } from '../net/relay.ts';
import type { Limits, Timing } from '../node/config.ts';
import { CidxNode } from '../node/node.ts';

export type { Notification } from '../index/inbox.ts';
export { DEFAULT_SWARM, type SwarmParams } from '../index/swarm.ts';
export { newSwarmKey, parseSwarmKey, SwarmKeyError } from '../net/swarm-key.ts';
export type { ChangeResult, CreateOptions } from '../node/create.ts';
export {
  NetworkError,
  NodeError,
  NotOwnerError,
  SwarmMismatchError,
  UnknownCommunityError,
} from '../node/errors.ts';
export { CidxNode, type CommunityInfo } from '../node/node.ts';
export type { CommunityResult, JoinOptions, JoinResult } from '../node/search.ts';
export { FieldError, ProfileError } from '../profile/errors.ts';
export { parseProfile } from '../profile/parse.ts';
export { Profile } from '../profile/profile.ts';
export { jaccard, similarity } from '../profile/similarity.ts';

export interface BrowserNodeOptions {
  /** WebSockets addresses of swarm nodes, with their peer ids (…/tcp/4002/ws/p2p/12D3…). */
  bootstrap: string[];
  /** The swarm's parameters: the same as every node of the swarm runs. */
  swarm?: Partial<SwarmParams>;
  timing?: Partial<Timing>;
  limits?: Partial<Limits>;
  /** Relay slots to hold (`reservations`, default 2); the rest concerns relays themselves. */
  relay?: Partial<RelaySettings>;
  /** A private swarm's pre-shared key (the key file's bytes). */
  swarmKey?: Uint8Array;
  /**
   * How long start waits for a first relay reservation (ms, default 15000; 0: not at all).
   * Until one is held the node has no address, so it cannot create a community (whose contacts
   * are its addresses) or be notified.
   */
  relayWaitMs?: number;
}

/**
 * Starts a node in the page, joins the swarm through `bootstrap` and, by default, waits for a
 * relay address. Stop it with `node.stop()` (e.g. on `pagehide`).
 */
export async function startBrowserNode(o: BrowserNodeOptions): Promise<CidxNode> {
  if (!Array.isArray(o.bootstrap) || o.bootstrap.length === 0)
    throw new TypeError('bootstrap: at least one /ws or /wss address of a swarm node');
  const node = await CidxNode.create({
    transport: 'websockets',
    listen: [],
    reachability: 'private',
    bootstrap: o.bootstrap,
    swarm: o.swarm,
    timing: o.timing,
    limits: o.limits,
    relay: o.relay,
    swarmKey: o.swarmKey,
  });
  await node.start();
  const waitMs = o.relayWaitMs ?? 15_000;
  if (waitMs > 0) {
    try {
      await relayAddress(node, waitMs);
    } catch (err) {
      await node.stop();
      throw err;
    }
  }
  return node;
}

/** Resolves once the node holds a relay reservation (it then has a /p2p-circuit address). */
export function relayAddress(node: CidxNode, timeoutMs: number): Promise<string[]> {
  const r = node.libp2p.services.reachability;
  if (r.relayAddrs.length > 0) return Promise.resolve(r.relayAddrs);
  return new Promise((resolve, reject) => {
    const done = (e: CustomEvent<string[]>) => {
      if (e.detail.length === 0) return;
      clearTimeout(timer);
      r.removeEventListener('relay-addresses', done);
      resolve(e.detail);
    };
    const timer = setTimeout(() => {
      r.removeEventListener('relay-addresses', done);
      reject(new Error(`no relay reservation within ${timeoutMs} ms: is a public node reachable?`));
    }, timeoutMs);
    r.addEventListener('relay-addresses', done);
  });
}
