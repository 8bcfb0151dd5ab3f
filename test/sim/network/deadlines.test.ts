import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { indexKeys } from '../../../src/keys/index-keys.ts';
import { IndexClient } from '../../../src/net/client.ts';
import { sortByDistance } from '../../../src/net/closest.ts';
import { type Request, WIRE_VERSION } from '../../../src/net/codec.ts';
import { Meter } from '../../../src/net/meter.ts';
import { type RoundTrips, roundTrips } from '../../../src/net/round-trips.ts';
import type { CidxNode } from '../../../src/node/node.ts';
import { parseProfile } from '../../../src/profile/parse.ts';
import { hex } from '../../../src/util/bytes.ts';
import { stopAll, variedProfiles, waitFor } from '../../support/swarm.ts';
import { cidxNode } from './hosts.ts';

/**
 * Deadlines that follow the round trips a node sees (src/net/round-trips.ts), on real nodes
 * over the network model. The configured bounds are ten minutes — longer than any test may
 * take — so a wait that ends at all ended at an adaptive deadline; what is asserted is the
 * outcome (answered, or given up with the deadline it had), never how long it took.
 */
const BOUND = 600_000;
const timing = { requestTimeoutMs: BOUND, lookupTimeoutMs: BOUND };

describe('adaptive deadlines on the network model', () => {
  const nodes: CidxNode[] = [];
  const nets: SimNetwork[] = [];
  afterEach(async () => {
    for (const n of nets) n.thaw(n.model.member('frozen') ? ['frozen'] : []);
    await stopAll(nodes.splice(0));
    for (const n of nets.splice(0)) n.close();
  });
  const network = (latencyMs: number) => {
    const n = new SimNetwork({ seed: 4, latencyMs });
    nets.push(n);
    return n;
  };
  const start = async (...args: Parameters<typeof cidxNode>) => {
    const n = await cidxNode(...args);
    nodes.push(n);
    return n;
  };
  const clientOf = (from: CidxNode, rt: RoundTrips) =>
    new IndexClient(
      from.libp2p,
      { timeoutMs: BOUND, maxFrameBytes: 1 << 20, roundTrips: rt },
      new Meter(),
    );
  const params = (to: CidxNode): Request => ({
    v: WIRE_VERSION,
    swarm: to.swarm.digest,
    t: 'params',
  });
  /** `from` knows where `to` listens (a request may then dial it). */
  const know = (from: CidxNode, ...to: CidxNode[]) =>
    Promise.all(
      to.map((t) =>
        from.libp2p.peerStore.merge(t.peerId, { multiaddrs: t.libp2p.getMultiaddrs() }),
      ),
    );

  it('gives up on a peer that stopped answering at a few round trips, far within the bound', async () => {
    const net = network(50);
    const a = await start(net, 'a', { timing });
    const b = await start(net, 'frozen', { timing });
    await know(a, b);
    const rt = roundTrips(timing);
    const client = clientOf(a, rt);
    for (let i = 0; i < 10; i++) expect((await client.request(b.peerId, params(b))).ok).toBe(true);
    const deadline = rt.request.deadline(b.peerId.toString());
    // 100 ms round trips: a request is two (protocol negotiation, then the request).
    expect(deadline).toBeGreaterThanOrEqual(200);
    expect(deadline).toBeLessThan(BOUND / 100);
    net.freeze(['frozen']);
    const err = await client.request(b.peerId, params(b)).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TimeoutError');
    expect((err as Error).message).toContain(`timed out after ${deadline} ms`);
    expect(rt.request.timeouts).toBe(1);
    net.thaw(['frozen']);
    expect((await client.request(b.peerId, params(b))).ok).toBe(true);
  }, 120_000);

  it('waits for a peer twice as far as the peers it has seen', async () => {
    const net = network(50);
    const a = await start(net, 'a', { timing });
    const near = [];
    for (let i = 0; i < 4; i++) near.push(await start(net, `near${i}`, { timing }));
    // 50 ms more at its end: 200 ms round trips where the others have 100.
    const far = await start(net, 'far', { timing }, { accessMs: 50 });
    expect(net.rttMs('a', 'far')).toBe(2 * net.rttMs('a', 'near0'));
    await know(a, ...near, far);
    const rt = roundTrips(timing);
    const client = clientOf(a, rt);
    for (const n of near)
      for (let i = 0; i < 3; i++) expect((await client.request(n.peerId, params(n))).ok).toBe(true);
    // Dials and requests seen: the deadlines now follow them, not the bound.
    expect(rt.dial.deadline()).toBeLessThan(BOUND / 100);
    expect(rt.request.deadline()).toBeLessThan(BOUND / 100);
    expect((await client.request(far.peerId, params(far))).ok).toBe(true);
    expect((await client.request(far.peerId, params(far))).ok).toBe(true);
    expect([rt.dial.timeouts, rt.request.timeouts]).toEqual([0, 0]);
  }, 120_000);

  it('a search finds a community though one of its holders stopped answering', async () => {
    const net = network(50);
    const swarm: CidxNode[] = [];
    for (let i = 0; i < 7; i++) {
      // The frozen holder joins through the asker too: the asker's lookups must know of it to
      // meet it (one that never heard of it converges on the others, and waits for nobody).
      const through = i === 6 ? [...swarm.slice(0, 3), swarm[4] as CidxNode] : swarm.slice(0, 3);
      const bootstrap = through.map((n) => n.addrs[0] as string);
      // n4 looks every key up (no routing) and waits for every key (a quorum would drop the
      // keys still waiting, the frozen holder's among them, however fast the others answered):
      // its own waits meet the frozen holder.
      const limits = i === 4 ? { routeHops: 0, searchQuorum: 100 } : {};
      swarm.push(await start(net, i === 6 ? 'frozen' : `n${i}`, { timing, bootstrap, limits }));
    }
    const knowsFrozen = () =>
      (swarm[4] as CidxNode)
        .peers()
        .routing.profiles.includes((swarm[6] as CidxNode).peerId.toString());
    await waitFor(
      () => swarm.every((n) => n.info().peers.profiles >= 3) && knowsFrozen(),
      60_000,
      'routing tables',
    );
    const owner = swarm[0] as CidxNode;
    const router = swarm[3] as CidxNode;
    const asker = swarm[4] as CidxNode;
    const frozen = swarm[6] as CidxNode;
    // The community searched for has a key whose closest peer of all is the frozen one: every
    // lookup of that key queries it, and it is the first replica asked (a community whose keys
    // all lie nearer the others may be found without waiting for it at all).
    const ids = swarm.map((n) => n.peerId);
    const nearestIsFrozen = (key: Uint8Array) => sortByDistance(ids, key)[0]?.equals(frozen.peerId);
    const [warm, ...candidates] = variedProfiles(12, 24, 5);
    const chosen = candidates
      .map((c) => ({
        p: c,
        key: indexKeys(parseProfile(c), frozen.swarm.params.index).find(nearestIsFrozen),
      }))
      .find((c) => c.key !== undefined);
    if (chosen?.key === undefined)
      throw new Error('no candidate profile has a key nearest the frozen node');
    const { p, key: frozenKey } = chosen;
    const { id } = await owner.create(p);
    await owner.create(warm);
    const heldByFrozen = [...frozen.table.descriptors(hex(frozenKey), Date.now())];
    expect(heldByFrozen.map((d) => d.id)).toContain(id);
    // The askers have made lookups and requests before: their deadlines follow what they saw.
    for (const n of [router, asker])
      expect((await n.search(warm, { k: 1 }))[0]?.similarity).toBe(1);
    net.freeze(['frozen']);
    for (const n of [router, asker]) {
      const [best] = await n.search(p, { k: 1 });
      expect(best?.id).toBe(id);
      expect(best?.similarity).toBe(1);
    }
    const w = asker.waits();
    // The frozen holder was given up on at an adaptive deadline, somewhere on the way.
    expect(w.dial.timeouts + w.request.timeouts + w.lookup.timeouts).toBeGreaterThan(0);
  }, 180_000);
});
