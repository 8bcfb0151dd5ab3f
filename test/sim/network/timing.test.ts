import type { Stream } from '@libp2p/interface';
import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { IndexClient } from '../../../src/net/client.ts';
import { type Request, WIRE_VERSION } from '../../../src/net/codec.ts';
import type { CidxLibp2p } from '../../../src/net/libp2p.ts';
import { Meter } from '../../../src/net/meter.ts';
import type { CidxNode } from '../../../src/node/node.ts';
import { cidxNode, host } from './hosts.ts';

/**
 * Time on the simulated network, on real libp2p hosts. Only lower bounds on wall time are
 * asserted: the model never delivers early, and a loaded machine only makes things later.
 */
describe('delay and bandwidth of the network model', () => {
  const running: (CidxLibp2p | CidxNode)[] = [];
  const nets: SimNetwork[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map(async (x) => x.stop()));
    for (const n of nets.splice(0)) n.close();
  });
  const track = <T extends CidxLibp2p | CidxNode>(x: T): T => {
    running.push(x);
    return x;
  };
  const network = (c: ConstructorParameters<typeof SimNetwork>[0]) => {
    const n = new SimNetwork(c);
    nets.push(n);
    return n;
  };

  it('a cidx request and its response take at least one round trip (latency 100ms)', async () => {
    const net = network({ seed: 1, latencyMs: 100 });
    const a = track(await cidxNode(net, 'a'));
    const b = track(await cidxNode(net, 'b', { bootstrap: a.addrs }));
    const client = new IndexClient(
      a.libp2p,
      { timeoutMs: 20_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const params: Request = { v: WIRE_VERSION, swarm: b.swarm.digest, t: 'params' };
    expect(a.libp2p.getConnections(b.peerId).length).toBeGreaterThan(0);
    const t0 = performance.now();
    const res = await client.request(b.peerId, params);
    const took = performance.now() - t0;
    expect(res.ok).toBe(true);
    expect(took).toBeGreaterThanOrEqual(200);
    const stats = net.stats();
    expect(stats.rttP50Ms).toBe(200);
    expect(stats.connections).toBeGreaterThanOrEqual(1);
  });

  it('opening a connection costs a round trip, then the handshakes pay their own', async () => {
    const net = network({ seed: 1, latencyMs: 60 });
    const a = track(await host(net, 'a'));
    const b = track(await host(net, 'b'));
    const t0 = performance.now();
    await a.dial(b.getMultiaddrs()[0] as never);
    // TCP's round trip, then the plaintext and yamux negotiations pay their own.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * 120);
  });

  it('keeps the order of what one connection carries under jitter; each link keeps its delay', async () => {
    const net = network({ seed: 3, latencyMs: 20, jitterMs: 15 });
    const a = track(await host(net, 'a'));
    const b = track(await host(net, 'b'));
    const got: number[] = [];
    const done = new Promise<void>((resolve, reject) => {
      void b.handle('/test/order/1', async (stream: Stream) => {
        let buf = new Uint8Array(0);
        try {
          for await (const chunk of stream) {
            const bytes = chunk.subarray();
            const next = new Uint8Array(buf.length + bytes.length);
            next.set(buf);
            next.set(bytes, buf.length);
            buf = next;
          }
          const view = new DataView(buf.buffer);
          for (let i = 0; i + 4 <= buf.length; i += 4) got.push(view.getUint32(i));
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
    const stream = await a.dialProtocol(b.getMultiaddrs()[0] as never, '/test/order/1');
    // Messages of varied sizes, sent without waiting: many chunks in flight at once.
    let n = 0;
    for (let m = 0; m < 200; m++) {
      const words = 1 + ((m * 37) % 300);
      const msg = new Uint8Array(words * 4);
      const view = new DataView(msg.buffer);
      for (let w = 0; w < words; w++) view.setUint32(w * 4, n++);
      if (!stream.send(msg)) await stream.onDrain();
    }
    await stream.close();
    await done;
    expect(got).toEqual(Array.from({ length: n }, (_, i) => i));
    // Each link's delay is drawn once within ± jitter, differs between links, and is the same
    // for a network with the same seed.
    const twin = network({ seed: 3, latencyMs: 20, jitterMs: 15 });
    const names = Array.from({ length: 6 }, (_, i) => `m${i}`);
    for (const n of names) twin.join(n);
    const oneWay = (on: SimNetwork, x: string, y: string) =>
      on.model.oneWayMs(on.model.member(x) as never, on.model.member(y) as never);
    const delays = names.flatMap((x) =>
      names.filter((y) => y !== x).map((y) => oneWay(twin, x, y)),
    );
    for (const d of delays) expect(Math.abs(d - 20)).toBeLessThanOrEqual(15);
    expect(new Set(delays).size).toBeGreaterThan(delays.length / 2);
    const again = network({ seed: 3, latencyMs: 20, jitterMs: 15 });
    for (const n of [...names].reverse()) again.join(n);
    expect(
      names.flatMap((x) => names.filter((y) => y !== x).map((y) => oneWay(again, x, y))),
    ).toEqual(delays);
  });

  it('an uplink of 1 mbit takes at least a second for 125 KB', async () => {
    const net = network({ seed: 1, bandwidthBps: 1_000_000 });
    const s = track(await host(net, 's'));
    const r = track(await host(net, 'r'));
    await s.dial(r.getMultiaddrs()[0] as never);
    const got = new Promise<number>((resolve, reject) => {
      void r.handle('/test/bulk/1', async (stream: Stream) => {
        let total = 0;
        try {
          for await (const chunk of stream) total += chunk.byteLength;
          resolve(total);
        } catch (err) {
          reject(err);
        }
      });
    });
    const t0 = performance.now();
    const stream = await s.dialProtocol(r.getMultiaddrs()[0] as never, '/test/bulk/1');
    const block = new Uint8Array(5000).fill(7);
    for (let i = 0; i < 25; i++) if (!stream.send(block)) await stream.onDrain();
    await stream.close();
    expect(await got).toBe(125_000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1000);
    // The model's own account: the sender's uplink is busy until at least a second later.
    expect((net.model.member('s')?.uplinkFreeAt ?? 0) - t0).toBeGreaterThanOrEqual(1000);
  });
});
