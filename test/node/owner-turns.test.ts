import { describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import type { Request } from '../../src/net/codec.ts';
import { createCommunity } from '../../src/node/create.ts';
import { dissolveCommunity } from '../../src/node/dissolve.ts';
import { MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import { republishOwned } from '../../src/node/republish.ts';
import { searchCommunities } from '../../src/node/search.ts';
import { updateCommunity } from '../../src/node/update.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { variedProfiles } from '../support/swarm.ts';

/**
 * An owner's update or dissolve and a republish round of the same community, both on their way
 * at once: every peer holds requests of given types (a slow swarm) and lets them go in a chosen
 * order. Whatever the order, the round must not write back the community as it was before the
 * other change.
 */
describe("an owner's changes of one community take turns", () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;
  const [first, other] = variedProfiles(2, 12, 5, 2).map((p) => parseProfile(p)) as [
    Profile,
    Profile,
  ];

  async function setup() {
    const net = await MemoryNetwork.create(6, { swarm, now });
    const owner = net.peers[0] as MemoryPeer;
    const ctx = net.context(owner);
    const { id } = await createCommunity(ctx, first, { notify: 0 });
    return { net, owner, ctx, id };
  }

  /** Every peer holds requests of each type given until its release; `reached` at the first. */
  function hold<T extends Request['t']>(net: MemoryNetwork, types: T[]) {
    const release = {} as Record<T, () => void>;
    const reached = {} as Record<T, Promise<void>>;
    const arrived = {} as Record<T, () => void>;
    const until: Partial<Record<Request['t'], Promise<void>>> = {};
    for (const t of types) {
      until[t] = new Promise<void>((r) => {
        release[t] = r;
      });
      reached[t] = new Promise<void>((r) => {
        arrived[t] = r;
      });
    }
    const onHeld = (t: Request['t']) => arrived[t as T]?.();
    for (const p of net.peers) p.faults.held = { until, onHeld };
    const off = () => {
      for (const p of net.peers) delete p.faults.held;
    };
    return { release, reached, off };
  }

  it('a round that starts during a dissolve republishes the tombstone, not the community', async () => {
    const { net, owner, ctx, id } = await setup();
    const h = hold(net, ['remove', 'store']);
    const dissolving = dissolveCommunity(ctx, id);
    await h.reached.remove;
    const round = republishOwned(ctx);
    h.release.remove();
    await dissolving;
    // The round's stores (if it sends any) land after the dissolve.
    h.release.store();
    await round;
    expect(owner.owned.get(id)?.dissolved).toBeDefined();
    h.off();
    expect(await republishOwned(ctx)).toEqual({ communities: 0, tombstones: 1, failedKeys: 0 });
    const asker = net.context(net.peers[5] as MemoryPeer);
    expect((await searchCommunities(asker, first, 5)).map((r) => r.id)).not.toContain(id);
  });

  it('a round that starts during an update keeps the new version', async () => {
    const { net, owner, ctx, id } = await setup();
    const h = hold(net, ['update', 'store']);
    // The same attributes, other weights: the update sends `update`s under every key.
    const weights = Object.fromEntries([...first.weights.keys()].map((a) => [a, 1]));
    const updating = updateCommunity(ctx, id, parseProfile({ weights }), { notify: 0 });
    await h.reached.update;
    const round = republishOwned(ctx);
    h.release.update();
    expect((await updating).version).toBe(2);
    h.release.store();
    expect(await round).toMatchObject({ communities: 1, tombstones: 0 });
    expect(owner.owned.get(id)?.version).toBe(2);
    expect(owner.owned.get(id)?.profile.weights).toEqual(new Map(Object.entries(weights)));
  });

  it('a change of one community does not wait for a round held on another', async () => {
    const { net, ctx, id } = await setup();
    const two = await createCommunity(ctx, other, { notify: 0 });
    const h = hold(net, ['store']);
    const round = republishOwned(ctx);
    // The round is held on the first community's stores; the second dissolves meanwhile.
    await h.reached.store;
    await dissolveCommunity(ctx, two.id);
    h.release.store();
    expect(await round).toMatchObject({ communities: 1, tombstones: 1 });
    expect(ctx.owned.get(id)?.dissolved).toBeUndefined();
    expect(ctx.owned.get(two.id)?.dissolved).toBeDefined();
  });
});
