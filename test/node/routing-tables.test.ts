import { randomBytes } from 'node:crypto';
import type { SingleKadDHT } from '@libp2p/kad-dht';
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeOptions } from '../../src/node/config.ts';
import { CidxNode } from '../../src/node/node.ts';
import { stopAll, variedProfiles } from '../support/swarm.ts';

describe('a node whose kad-dht does not expose its routing table size', () => {
  const nodes: CidxNode[] = [];
  afterEach(async () => {
    await stopAll(nodes.splice(0));
  });
  const make = async (o: Partial<NodeOptions>) => {
    const n = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/routing-tables-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
      // A start that waited for a size it cannot read would wait this long: the test times out.
      timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 600_000 },
      ...o,
    });
    nodes.push(n);
    return n;
  };

  it('warns at start, joins through identify, counts its peers and works', async () => {
    const a = await make({});
    await a.start();
    const b = await make({ bootstrap: a.addrs });
    // As an upgrade that renamed it would: the size reads as undefined.
    for (const dht of [b.libp2p.services.profiles, b.libp2p.services.addresses])
      Object.defineProperty((dht as unknown as SingleKadDHT).routingTable, 'size', {
        value: undefined,
        configurable: true,
      });
    const warnings: string[] = [];
    b.on('warning', (w) => warnings.push(w));
    await b.start();
    expect(warnings.filter((w) => w.includes('routingTable.size'))).toHaveLength(2);
    expect(b.info().peers.profiles).toBe(1);
    expect(b.info().peers.addresses).toBe(1);
    const [p] = variedProfiles(1, 20, 3);
    const { id } = await a.create(p);
    expect((await b.search(p))[0]?.id).toBe(id);
  }, 60_000);
});
