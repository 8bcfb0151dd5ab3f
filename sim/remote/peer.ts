/**
 * A node the simulator drives over its JSON-RPC port with the typed client: a `cidx node`
 * process it started, or one that runs elsewhere. It keeps the last `stats` and `info` it got,
 * so that a node that stopped answering (frozen, crashed, gone) still counts with what it had
 * sent, and a frozen one is never waited for.
 */
import type { CidxClient, StatsResult } from '../../src/client/index.ts';
import type { Profile } from '../../src/profile/profile.ts';
import type { PeerInfo, SimPeer } from '../swarm-api.ts';

/** Bound on a `stats` or `node.info` call: a node that does not answer keeps its last figures. */
const QUICK_MS = 10_000;

export class RpcPeer implements SimPeer {
  readonly index: number;
  readonly client: CidxClient;
  alive = true;
  frozen = false;
  #stats: StatsResult | undefined;
  #info: PeerInfo | undefined;

  constructor(index: number, client: CidxClient) {
    this.index = index;
    this.client = client;
  }

  async create(profile: Profile): Promise<{ id: string }> {
    const { id } = await this.client.communityCreate({ profile: profile.toJSON() });
    return { id };
  }

  async search(profile: Profile, k: number): Promise<{ id: string; similarity: number }[]> {
    const { results } = await this.client.communitySearch({ profile: profile.toJSON(), k });
    return results.map((r) => ({ id: r.id, similarity: r.similarity }));
  }

  async update(id: string, profile: Profile): Promise<void> {
    await this.client.communityUpdate({ id, profile: profile.toJSON() });
  }

  async dissolve(id: string): Promise<void> {
    await this.client.communityDissolve({ id });
  }

  async republish(): Promise<void> {
    await this.client.nodeRepublish();
  }

  /** What it holds; a frozen node's last answer (it would answer nothing). */
  async info(): Promise<PeerInfo> {
    if (this.frozen && this.#info !== undefined) return this.#info;
    const i = await this.client.call('node.info', undefined, {
      signal: AbortSignal.timeout(QUICK_MS),
    });
    this.#info = {
      descriptors: i.stored.descriptors,
      keys: i.stored.keys,
      bytes: i.stored.bytes,
      owned: i.owned,
    };
    return this.#info;
  }

  /** Its counters now, or (not answering, frozen, gone) the last ones it gave. */
  async stats(): Promise<StatsResult | undefined> {
    if (!this.alive || this.frozen) return this.#stats;
    try {
      this.#stats = await this.client.call('stats', undefined, {
        signal: AbortSignal.timeout(QUICK_MS),
      });
    } catch {
      // Keeps the last figures: the caller sums what it has.
    }
    return this.#stats;
  }

  /** Asks for stats and info before the node stops answering (freeze, kill, leave). */
  async remember(): Promise<void> {
    if (!this.alive || this.frozen) return;
    await Promise.allSettled([this.stats(), this.info()]);
  }
}
