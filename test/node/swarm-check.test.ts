import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import type { NodeOptions } from '../../src/node/config.ts';
import { SwarmMismatchError } from '../../src/node/errors.ts';
import { MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import { CidxNode } from '../../src/node/node.ts';
import { SwarmCheck } from '../../src/node/swarm-check.ts';
import { stopAll, variedProfiles, waitFor } from '../support/swarm.ts';

describe('the swarm check', () => {
  it('fails every operation of a node whose cidx peers all run other parameters, until one agrees', async () => {
    const swarm = resolveSwarm({ index: { mode: 'attribute' } });
    const net = await MemoryNetwork.create(3, { swarm });
    const [me, stray, peer] = net.peers as [MemoryPeer, MemoryPeer, MemoryPeer];
    stray.faults.otherSwarm = true;
    const ctx = net.context(me);
    const check = new SwarmCheck(ctx.holders, swarm);
    check.assert();
    await check.identified(stray.id);
    expect(check.foreign).toBe(1);
    expect(() => check.assert()).toThrow(SwarmMismatchError);
    // Never asked anything again: the lookups leave it out.
    const candidates = await ctx.holders.candidates('profiles', new Uint8Array(32));
    expect(candidates.some((p) => p.equals(stray.id))).toBe(false);
    await check.identified(peer.id);
    check.assert();
    await expect(check.requireSame(stray.id)).rejects.toThrow(SwarmMismatchError);
    await expect(check.requireSame(peer.id)).resolves.toBeUndefined();
  });
});

describe('a node connected to a swarm of other parameters', () => {
  const nodes: CidxNode[] = [];
  afterEach(async () => {
    await stopAll(nodes.splice(0));
  });

  const start = async (o: Partial<NodeOptions>) => {
    const n = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/swarm-check-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
      timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
      ...o,
    });
    nodes.push(n);
    await n.start();
    return n;
  };

  it('refuses to update, like to create, search and dissolve, and changes nothing', async () => {
    const [p, q] = variedProfiles(2, 20, 11);
    const stray = await start({ swarm: { k: 7 } });
    const { id } = await stray.create(p);
    const other = await start({ swarm: { k: 5 } });
    await stray.libp2p.dial(other.libp2p.getMultiaddrs()[0] as never);
    await waitFor(() => stray.info().peers.foreign > 0, 10_000, 'the parameters check');
    await expect(stray.update(id, q)).rejects.toThrow(SwarmMismatchError);
    expect(stray.owned(id)?.version).toBe(1);
    await expect(stray.create(q)).rejects.toThrow(SwarmMismatchError);
    await expect(stray.search(p)).rejects.toThrow(SwarmMismatchError);
    await expect(stray.join(p)).rejects.toThrow(SwarmMismatchError);
    await expect(stray.dissolve(id)).rejects.toThrow(SwarmMismatchError);
    expect(stray.owned(id)?.dissolved).toBeUndefined();
  });
});
