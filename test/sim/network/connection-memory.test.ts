import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { type CidxLibp2p, createHost } from '../../../src/net/libp2p.ts';
import { onNetwork } from './hosts.ts';

/**
 * What a simulated connection keeps alive (sim/network/transport.ts), on real libp2p hosts over
 * the network model.
 */
describe('simulated connections and the memory they hold', () => {
  const running: CidxLibp2p[] = [];
  const nets: SimNetwork[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map(async (h) => h.stop()));
    for (const n of nets.splice(0)) n.close();
  });
  const started = async (net: SimNetwork, name: string) => {
    const h = await createHost({ ...onNetwork(net, name), simulation: true });
    running.push(h);
    await h.start();
    return h;
  };

  it("names a listener by one address object on every dialler's connection to it", async () => {
    const net = new SimNetwork({ seed: 2 });
    nets.push(net);
    const [a, b, c] = [await started(net, 'a'), await started(net, 'b'), await started(net, 'c')];
    const listening = b.getMultiaddrs()[0];
    if (listening === undefined) throw new Error('b listens nowhere');
    const fromA = await a.dial(listening);
    const fromC = await c.dial(listening);
    expect(fromA.remoteAddr.toString()).toBe(listening.toString());
    expect(fromA.remoteAddr).toBe(fromC.remoteAddr);
    // The inbound ends name their diallers apart.
    const [toA] = b.getConnections(a.peerId);
    const [toC] = b.getConnections(c.peerId);
    expect(toA?.remoteAddr.toString()).toContain(a.peerId.toString());
    expect(toC?.remoteAddr.toString()).toContain(c.peerId.toString());
  });
});
