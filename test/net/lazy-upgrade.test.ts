import { setFlagsFromString } from 'node:v8';
import { Uint8ArrayList } from 'uint8arraylist';
import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../sim/network/network.ts';
import { SimConnection } from '../../sim/network/transport.ts';
import { type ByteConnection, negotiateLazily } from '../../src/net/lazy-upgrade.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { encodeLine, HEADER } from '../../src/net/multistream.ts';
import { PING_PROTOCOL } from '../../src/net/protocols.ts';
import { newSwarmKey } from '../../src/net/swarm-key.ts';
import { onNetwork } from '../sim/network/hosts.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

const bytes = (...parts: Uint8Array[]) => new Uint8ArrayList(...parts).subarray();
const proposal = (p: string) => bytes(HEADER, encodeLine(p));
const text = (b: Uint8Array | Uint8ArrayList) => new TextDecoder().decode(b.subarray());

/** What a connection sent and what its reader was handed, in order. */
class FakeConnection implements ByteConnection {
  sent: Uint8Array[] = [];
  read: Uint8Array[] = [];
  aborted: Error | undefined;
  send(data: Uint8Array | Uint8ArrayList): boolean {
    this.sent.push(data.subarray());
    return true;
  }
  onData(data: Uint8Array | Uint8ArrayList): void {
    this.read.push(data.subarray());
  }
  abort(err: Error): void {
    this.aborted = err;
  }
}

describe('a connection that proposes lazily', () => {
  const lazy = new Set(['/plaintext/2.0.0', '/yamux/1.0.0']);

  it("answers its own proposal at once and takes the peer's echo off what arrives", () => {
    const c = new FakeConnection();
    negotiateLazily(c, lazy);
    c.send(proposal('/plaintext/2.0.0'));
    // The reader has its answer before anything arrived.
    expect(c.read.map(text)).toEqual(['\u0013/multistream/1.0.0\n\u0011/plaintext/2.0.0\n']);
    c.send(Uint8Array.from([1, 2, 3]));
    // The echo arrives in pieces, the peer's first message behind it in the same chunk.
    const echo = proposal('/plaintext/2.0.0');
    c.onData(echo.subarray(0, 5));
    c.onData(echo.subarray(5, 21));
    expect(c.read).toHaveLength(1);
    c.onData(bytes(echo.subarray(21), Uint8Array.from([9, 9])));
    expect(c.read.slice(1)).toEqual([Uint8Array.from([9, 9])]);
    // The muxer's proposal after the exchange: answered too, its echo taken off.
    c.send(proposal('/yamux/1.0.0'));
    expect(text(c.read[2] as Uint8Array)).toBe('\u0013/multistream/1.0.0\n\r/yamux/1.0.0\n');
    c.onData(bytes(proposal('/yamux/1.0.0'), Uint8Array.from([7])));
    expect(c.read.slice(3)).toEqual([Uint8Array.from([7])]);
    expect(c.sent).toHaveLength(3);
    expect(c.aborted).toBeUndefined();
    // Done looking: later bytes pass as they are, even ones that look like an echo.
    c.onData(proposal('/yamux/1.0.0'));
    expect(c.read).toHaveLength(5);
  });

  it('aborts the connection when the peer answers "na"', () => {
    const c = new FakeConnection();
    negotiateLazily(c, lazy);
    c.send(proposal('/plaintext/2.0.0'));
    c.onData(bytes(HEADER, encodeLine('na')));
    expect(c.aborted?.name).toBe('UnsupportedProtocolError');
    expect(c.read).toHaveLength(1);
  });

  it('aborts on an echo too long to be one', () => {
    const c = new FakeConnection();
    negotiateLazily(c, lazy);
    c.send(proposal('/plaintext/2.0.0'));
    c.onData(Uint8Array.from([0x81, 0x08]));
    expect(c.aborted?.message).toMatch(/too long/);
  });

  it('leaves a connection alone whose first write proposes nothing, or another protocol', () => {
    for (const first of [new Uint8Array(24), proposal('/noise')]) {
      const c = new FakeConnection();
      negotiateLazily(c, lazy);
      c.send(first);
      expect(c.read).toHaveLength(0);
      c.send(proposal('/yamux/1.0.0'));
      c.onData(proposal('/plaintext/2.0.0'));
      // Nothing answered, nothing taken off.
      expect(c.read.map(text)).toEqual([text(proposal('/plaintext/2.0.0'))]);
    }
  });

  it("leaves the connection's object as fast as it was once done looking", () => {
    // V8 keeps an object whose property V8 did not add last is deleted as a dictionary: larger,
    // and slower to read, for the rest of the connection's life.
    setFlagsFromString('--allow-natives-syntax');
    const fast = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
    const c = new FakeConnection();
    expect(fast(c)).toBe(true);
    negotiateLazily(c, lazy);
    c.send(proposal('/plaintext/2.0.0'));
    c.send(proposal('/yamux/1.0.0'));
    c.onData(bytes(proposal('/plaintext/2.0.0'), proposal('/yamux/1.0.0')));
    for (let i = 0; i < 8; i++) c.send(Uint8Array.from([i]));
    expect(fast(c)).toBe(true);
    // Sends and reads go to the class's own methods again.
    expect(c.send).toBe(FakeConnection.prototype.send);
    expect(c.onData).toBe(FakeConnection.prototype.onData);
  });

  it('waits for the echo of a proposal made while another is still to come', () => {
    const c = new FakeConnection();
    negotiateLazily(c, lazy);
    c.send(proposal('/plaintext/2.0.0'));
    c.send(proposal('/yamux/1.0.0'));
    expect(c.read).toHaveLength(1);
    c.onData(bytes(proposal('/plaintext/2.0.0'), proposal('/yamux/1.0.0')));
    // The second echo is the reader's to read, as without this.
    expect(c.read.slice(1).map(text)).toEqual([text(proposal('/yamux/1.0.0'))]);
  });
});

/**
 * Causal, not timed: the dialer's end of a simulated connection records what it sends and what
 * arrives. Every network delivery takes a timer turn, so what the dialer does in the turns that
 * follow a write happens before any answer to it.
 */
describe("a new connection's upgrade on the simulated network", () => {
  const running: CidxLibp2p[] = [];
  const nets: SimNetwork[] = [];
  const proto = SimConnection.prototype;
  const { sendData, receive } = proto;
  afterEach(async () => {
    proto.sendData = sendData;
    proto.receive = receive;
    await Promise.allSettled(running.splice(0).map(async (x) => x.stop()));
    for (const n of nets.splice(0)) n.close();
  });

  type Event = { dir: 'out' | 'in'; data: Uint8Array } | { dir: 'dialled' };
  /** Records the first outbound connection's traffic (a's dial to b), in order. */
  function record(net: SimNetwork): Event[] {
    const events: Event[] = [];
    let first: SimConnection | undefined;
    const mine = (c: SimConnection) => {
      // Connections of an earlier pair may still deliver what they sent before closing.
      if (c.direction !== 'outbound' || c.net !== net.model) return false;
      first ??= c;
      return c === first;
    };
    proto.sendData = function (this: SimConnection, data) {
      if (mine(this)) events.push({ dir: 'out', data: data.subarray() });
      return sendData.call(this, data);
    };
    proto.receive = function (this: SimConnection, kind, data) {
      if (data !== undefined && mine(this)) events.push({ dir: 'in', data: data.subarray() });
      return receive.call(this, kind, data);
    };
    return events;
  }

  async function dial(
    encryption: 'plaintext' | 'noise',
    optimisticSelect: boolean,
    swarmKey?: Uint8Array,
  ) {
    const net = new SimNetwork({ seed: 1, latencyMs: 20 });
    nets.push(net);
    const make = async (name: string) => {
      const h = await createHost({
        ...onNetwork(net, name),
        encryption,
        simulation: true,
        optimisticSelect,
        ...(swarmKey ? { swarmKey } : {}),
      });
      running.push(h);
      await h.start();
      return h;
    };
    const [a, b] = [await make('a'), await make('b')];
    const events = record(net);
    await a.dial(b.getMultiaddrs()[0] as never);
    events.push({ dir: 'dialled' });
    // The connection carries requests both ways.
    await a.services.ping.ping(b.peerId);
    expect((await a.peerStore.get(b.peerId)).protocols).toContain(PING_PROTOCOL);
    return events;
  }

  const firstIn = (events: Event[]) => events.findIndex((e) => e.dir === 'in');
  const at = (events: Event[], what: string) =>
    events.findIndex((e) => 'data' in e && text(e.data).includes(what));

  for (const encryption of ['plaintext', 'noise'] as const) {
    it(`sends the ${encryption} handshake behind its proposal, before any answer`, async () => {
      const events = await dial(encryption, true);
      const proposed = at(events, `/${encryption === 'noise' ? 'noise' : 'plaintext/2.0.0'}\n`);
      expect(proposed).toBe(0);
      // The next write went before the first byte arrived.
      expect(events[1]?.dir).toBe('out');
      expect(firstIn(events)).toBeGreaterThan(1);
    });
  }

  it('proposes the muxer after a plaintext exchange and is connected before its echo', async () => {
    const events = await dial('plaintext', true);
    const muxerOut = events.findIndex((e) => e.dir === 'out' && text(e.data).includes('/yamux/'));
    const muxerIn = events.findIndex((e) => e.dir === 'in' && text(e.data).includes('/yamux/'));
    const dialled = events.findIndex((e) => e.dir === 'dialled');
    expect(muxerOut).toBeGreaterThan(0);
    expect(dialled).toBeGreaterThan(muxerOut);
    expect(muxerIn).toBeGreaterThan(dialled);
  });

  it('behind a swarm key: the handshake follows the proposal before the echo', async () => {
    for (const optimistic of [true, false]) {
      // The first pair's connection would carry traffic while the second is recorded.
      await Promise.allSettled(running.splice(0).map(async (x) => x.stop()));
      const events = await dial('noise', optimistic, newSwarmKey());
      // Nonces both ways first; then, encrypted, the proposal — and the handshake's first
      // message before anything else arrives, or only once the echo is in.
      // Each side's nonce first (in either order); then, encrypted, the proposal — and the
      // handshake's first message before anything else arrives, or only after the echo.
      const nonces = [
        events.findIndex((e) => e.dir === 'out'),
        events.findIndex((e) => e.dir === 'in'),
      ];
      const rest = events.filter((_, i) => !nonces.includes(i));
      const size = (e: Event | undefined) =>
        e !== undefined && 'data' in e ? e.data.byteLength : 0;
      expect(nonces.map((i) => size(events[i]))).toEqual([24, 24]);
      expect(rest[0]?.dir).toBe('out');
      expect(rest[1]?.dir).toBe(optimistic ? 'out' : 'in');
    }
  });

  it('with the setting off, waits for every answer before going on', async () => {
    const events = await dial('plaintext', false);
    // The proposal, then its answer.
    expect(firstIn(events)).toBe(1);
    const muxerIn = events.findIndex((e) => e.dir === 'in' && text(e.data).includes('/yamux/'));
    expect(events.findIndex((e) => e.dir === 'dialled')).toBeGreaterThan(muxerIn);
  });

  it('a peer without the encryption refuses it: the dial fails and no connection stays', async () => {
    const net = new SimNetwork({ seed: 1, latencyMs: 20 });
    nets.push(net);
    const a = await createHost({
      ...onNetwork(net, 'a'),
      encryption: 'plaintext',
      simulation: true,
    });
    const b = await createHost({ ...onNetwork(net, 'b'), encryption: 'noise', simulation: true });
    running.push(a, b);
    await Promise.all([a.start(), b.start()]);
    await expect(a.dial(b.getMultiaddrs()[0] as never)).rejects.toThrow(
      /noise|plaintext|protocol/i,
    );
    expect(a.getConnections()).toHaveLength(0);
    await waitFor(() => b.getConnections().length === 0, WAIT_MS, "the responder's end closed");
  });
});
