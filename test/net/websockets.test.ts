import { afterEach, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

async function tcpNode(listen: string[], bootstrap: string[]): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen,
    reachability: 'public',
    bootstrap,
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

describe('WebSockets listen addresses', () => {
  it('sit next to TCP ones, and a node joins and searches through one', async () => {
    const a = await tcpNode(['/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/0/ws'], []);
    const ws = a.addrs.filter((x) => x.includes('/ws/'));
    expect(ws).toHaveLength(1);
    expect(a.addrs.filter((x) => !x.includes('/ws/'))).toHaveLength(1);
    expect(ws[0]).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/ws\/p2p\/12D3Koo/);

    const b = await tcpNode(['/ip4/127.0.0.1/tcp/0/ws'], ws);
    const [conn, ...more] = b.libp2p.getConnections(a.peerId);
    expect(more).toHaveLength(0);
    expect(conn?.remoteAddr.toString()).toContain('/ws');

    const profile = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } };
    const { id } = await a.create(profile);
    const [best] = await b.search(profile);
    expect(best?.id).toBe(id);
    expect(best?.contacts.sort()).toEqual([...a.addrs].sort());
    const mine = await b.create({ weights: { Verdi: 1, opera: 1 } });
    expect((await a.get(mine.id)).contacts).toEqual(b.addrs);
  });
});
