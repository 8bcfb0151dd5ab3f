import type { Stream } from '@libp2p/interface';
import { Uint8ArrayList } from 'uint8arraylist';
import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { INDEX_PROTOCOL } from '../../../src/net/codec.ts';
import { type CidxLibp2p, createHost } from '../../../src/net/libp2p.ts';
import { readEcho } from '../../../src/net/multistream.ts';
import { PING_PROTOCOL } from '../../../src/net/protocols.ts';
import { onNetwork } from './hosts.ts';

const line = (text: string) => {
  const bytes = new TextEncoder().encode(`${text}\n`);
  return Uint8Array.from([bytes.length, ...bytes]);
};

/** Polls `cond` until it holds (at most 5 s). */
async function until(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(await cond(), 'condition within 5 s').toBe(true);
}

describe("reading the responder's echo", () => {
  const header = line('/multistream/1.0.0');
  it('waits for all of it, and says how many bytes it took', () => {
    const all = new Uint8ArrayList(header, line('/p/1'), Uint8Array.from([7, 7]));
    for (let n = 0; n < all.byteLength - 2; n++) {
      expect(readEcho(all.sublist(0, n), '/p/1')).toBeUndefined();
    }
    expect(readEcho(all, '/p/1')).toEqual({ used: all.byteLength - 2 });
  });

  it('refuses "na", a missing header, and a line over 1024 bytes', () => {
    const na = readEcho(new Uint8ArrayList(header, line('na')), '/p/1');
    expect(na && 'error' in na && na.error.name).toBe('UnsupportedProtocolError');
    const noHeader = readEcho(new Uint8ArrayList(line('/p/1'), line('/p/1')), '/p/1');
    expect(noHeader && 'error' in noHeader && noHeader.error.message).toMatch(/header/);
    const long = readEcho(new Uint8ArrayList(Uint8Array.from([0x81, 0x08])), '/p/1');
    expect(long && 'error' in long && long.error.message).toMatch(/too long/);
  });
});

/**
 * Causal, not timed: with the peer frozen (the network holds everything sent to it), a stream
 * whose protocol is named optimistically opens and carries its request at once; one negotiated
 * first cannot open until the peer answers.
 */
describe('a request sent with its protocol name, on the simulated network', () => {
  const running: CidxLibp2p[] = [];
  const nets: SimNetwork[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map(async (x) => x.stop()));
    for (const n of nets.splice(0)) n.close();
  });

  async function pair(optimisticSelect: boolean, echoHandler = true) {
    const net = new SimNetwork({ seed: 1, latencyMs: 50 });
    nets.push(net);
    const make = async (name: string) => {
      const h = await createHost({ ...onNetwork(net, name), simulation: true, optimisticSelect });
      running.push(h);
      await h.start();
      return h;
    };
    const [a, b] = [await make('a'), await make('b')];
    if (echoHandler) {
      // Answers what it reads, then closes.
      await b.handle(INDEX_PROTOCOL, async (stream: Stream) => {
        for await (const chunk of stream) stream.send(chunk);
        await stream.close();
      });
    }
    await a.dial(b.getMultiaddrs()[0] as never);
    // Identify has run (it replaces what the peer store lists for b).
    await until(async () => (await a.peerStore.get(b.peerId)).protocols.includes(PING_PROTOCOL));
    return { net, a, b };
  }

  const heldAt = (net: SimNetwork, n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (net.stats().held >= n ? resolve() : setTimeout(check, 5));
      check();
    });

  /** Opens a stream with b frozen: it must still be opening once its name waits at b. */
  async function opensOnlyOnceAnswered(net: SimNetwork, open: () => Promise<Stream>) {
    net.freeze(['b']);
    const before = net.stats().held;
    let opened = false;
    const opening = open().then((s) => {
      opened = true;
      return s;
    });
    await heldAt(net, before + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened).toBe(false);
    net.thaw(['b']);
    return opening;
  }

  async function readAll(stream: Stream): Promise<string> {
    let text = '';
    for await (const chunk of stream) text += new TextDecoder().decode(chunk.subarray());
    return text;
  }

  it('opens and sends while the peer has answered nothing, and reads only the answer', async () => {
    const { net, a, b } = await pair(true);
    net.freeze(['b']);
    const stream = await a.dialProtocol(b.peerId, INDEX_PROTOCOL);
    expect(stream.protocol).toBe(INDEX_PROTOCOL);
    const before = net.stats().held;
    stream.send(new TextEncoder().encode('hello'));
    // The name and the request went out together, and wait at the frozen peer.
    await heldAt(net, before + 1);
    net.thaw(['b']);
    await stream.close();
    expect(await readAll(stream)).toBe('hello');
  });

  it('negotiated first, the stream waits for the peer (the setting off, or negotiateFully)', async () => {
    for (const [optimistic, options] of [
      [false, {}],
      [true, { negotiateFully: true }],
    ] as const) {
      const { net, a, b } = await pair(optimistic);
      const stream = await opensOnlyOnceAnswered(net, () =>
        a.dialProtocol(b.peerId, INDEX_PROTOCOL, options),
      );
      stream.send(new TextEncoder().encode('hi'));
      await stream.close();
      expect(await readAll(stream)).toBe('hi');
    }
  });

  it('a stream aborted in the turn it began to read sends nothing and throws nothing', async () => {
    const { a, b } = await pair(true);
    const stream = await a.dialProtocol(b.peerId, INDEX_PROTOCOL);
    stream.addEventListener('message', () => {});
    stream.abort(new Error('changed its mind'));
    // The name would have gone in a microtask, which runs before the next turn; an error there
    // would be an uncaught one.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.status).toBe('aborted');
  });

  it('a peer without the protocol fails the stream at its first read', async () => {
    const { a, b } = await pair(true, false);
    const stream = await a.dialProtocol(b.peerId, INDEX_PROTOCOL);
    stream.send(new TextEncoder().encode('hello'));
    await expect(readAll(stream)).rejects.toThrow(/does not speak/);
    // libp2p recorded the protocol for b when the stream opened; the refusal takes it out.
    await until(async () => !(await a.peerStore.get(b.peerId)).protocols.includes(INDEX_PROTOCOL));
  });

  it("protocols outside the swarm's own are negotiated first", async () => {
    const { net, a, b } = await pair(true, false);
    await b.handle('/other/1.0.0', async (stream: Stream) => {
      for await (const chunk of stream) stream.send(chunk);
      await stream.close();
    });
    await opensOnlyOnceAnswered(net, () => a.dialProtocol(b.peerId, '/other/1.0.0'));
  });
});
