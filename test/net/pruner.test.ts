import { afterAll, describe, expect, it } from 'vitest';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';

/** Real hosts on the memory transport: one with a small limit, dialled by many. */
describe('connection pruning in batches', () => {
  const hosts: CidxLibp2p[] = [];
  const start = async (name: string, maxConnections?: number) => {
    const h = await createHost({
      transport: 'memory',
      encryption: 'plaintext',
      listen: [`/memory/pruner-${name}-${Date.now()}`],
      ...(maxConnections === undefined ? {} : { maxConnections }),
    });
    await h.start();
    hosts.push(h);
    return h;
  };

  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
  });

  it('closes down to 90% of the limit past it, keeping the peers worth most', async () => {
    const hub = await start('hub', 10);
    const dialers = [];
    for (let i = 0; i < 14; i++) dialers.push(await start(`d${i}`));
    // The first dialer is worth keeping (as kad-dht tags the peers closest to it).
    await hub.peerStore.merge((dialers[0] as CidxLibp2p).peerId, {
      tags: { 'kad-close': { value: 50 } },
    });
    const dial = (d: CidxLibp2p) => d.dial(hub.getMultiaddrs()[0] as never);
    for (const d of dialers.slice(0, 10)) await dial(d);
    // At the limit nothing is closed…
    expect(hub.getConnections().length).toBe(10);
    // …one past it, the batch closes down to 9 (libp2p's own pruner would stop at 10).
    await dial(dialers[10] as CidxLibp2p);
    await expect.poll(() => hub.getConnections().length, { timeout: 10_000 }).toBe(9);
    const peers = hub.getConnections().map((c) => c.remotePeer.toString());
    expect(peers).toContain((dialers[0] as CidxLibp2p).peerId.toString());
    // The rest climb back to the limit and are trimmed again, never refused.
    for (const d of dialers.slice(11)) await dial(d);
    await expect
      .poll(() => hub.getConnections().length, { timeout: 10_000 })
      .toBeLessThanOrEqual(10);
  });
});
