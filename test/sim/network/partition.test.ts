import type { Stream } from '@libp2p/interface';
import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import type { CidxLibp2p } from '../../../src/net/libp2p.ts';
import { waitFor } from '../../support/swarm.ts';
import { host } from './hosts.ts';

/** Partitions on real libp2p hosts: refused dials, closed connections, dropped bytes, heal. */
describe('partitions of the network model', () => {
  const running: CidxLibp2p[] = [];
  const nets: SimNetwork[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map(async (h) => h.stop()));
    for (const n of nets.splice(0)) n.close();
  });
  const start = async (net: SimNetwork, name: string) => {
    const h = await host(net, name);
    running.push(h);
    return h;
  };
  const network = (latencyMs: number) => {
    const n = new SimNetwork({ seed: 5, latencyMs });
    nets.push(n);
    return n;
  };
  const addr = (h: CidxLibp2p) => h.getMultiaddrs()[0] as never;
  const dial = (from: CidxLibp2p, to: CidxLibp2p) =>
    from.dial(addr(to), { signal: AbortSignal.timeout(10_000) }).then(
      () => 'connected',
      (e: Error) => e.name,
    );

  it('refuses new dials and closes open connections across the cut; heal allows them again', async () => {
    const net = network(10);
    const a = await start(net, 'a');
    const b = await start(net, 'b');
    const c = await start(net, 'c');
    expect(await dial(a, b)).toBe('connected');
    expect(await dial(a, c)).toBe('connected');
    expect(await dial(b, c)).toBe('connected');

    net.partition(['c']);
    // Open connections across the cut are closed at both ends, the others kept.
    await waitFor(
      () => a.getConnections(c.peerId).length === 0 && c.getConnections().length === 0,
      10_000,
      'connections across the cut to close',
    );
    expect(a.getConnections(b.peerId).length).toBeGreaterThan(0);
    expect(net.stats().closedByPartition).toBeGreaterThanOrEqual(2);
    // New ones are refused both ways, by peer and by address.
    expect(await dial(a, c)).toBe('DialDeniedError');
    expect(await dial(c, b)).toBe('DialDeniedError');
    await expect(a.dial(c.peerId, { signal: AbortSignal.timeout(10_000) })).rejects.toThrow();

    net.heal();
    expect(await dial(a, c)).toBe('connected');
    expect(await dial(c, b)).toBe('connected');
    expect(
      await a.services.ping.ping(c.peerId, { signal: AbortSignal.timeout(10_000) }),
    ).toBeGreaterThanOrEqual(20);
  });

  it('drops the bytes in flight across the cut', async () => {
    const net = network(300);
    const a = await start(net, 'a');
    const b = await start(net, 'b');
    let received = 0;
    await b.handle('/test/sink/1', async (stream: Stream) => {
      for await (const chunk of stream) received += chunk.byteLength;
    });
    const stream = await a.dialProtocol(addr(b), '/test/sink/1', {
      signal: AbortSignal.timeout(20_000),
    });
    stream.send(new Uint8Array(1000).fill(1));
    // Sent; 300 ms from arriving when the cut comes.
    net.partition(['b']);
    await waitFor(() => b.getConnections().length === 0, 10_000, 'the connection to close');
    // Dropped when it would have arrived; nothing of it reached the other side.
    await waitFor(() => net.stats().droppedBytes >= 1000, 10_000, 'the chunk to be dropped');
    expect(received).toBe(0);
  });

  it('a node joining during a partition joins the majority side', async () => {
    const net = network(5);
    const [a, b, c] = [await start(net, 'a'), await start(net, 'b'), await start(net, 'c')];
    // Two of three cut off: they are the majority now.
    net.partition(['a', 'b']);
    const d = await start(net, 'd');
    expect(await dial(d, a)).toBe('connected');
    expect(await dial(d, b)).toBe('connected');
    expect(await dial(d, c)).toBe('DialDeniedError');
  });
});
