import { randomBytes } from 'node:crypto';
import type { Connection, Stream, StreamMuxer } from '@libp2p/interface';
import { defaultLogger } from '@libp2p/logger';
import { multiaddrConnectionPair } from '@libp2p/utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CidxLibp2p,
  createHost,
  type HostOptions,
  streamMuxer,
} from '../../src/net/libp2p.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

describe("a connection's stream muxer", () => {
  it('keeps streams a peer opens before this side is ready, and hands every one over', async () => {
    const [outbound, inbound] = multiaddrConnectionPair();
    const factory = streamMuxer(
      { simulation: true, optimisticSelect: false },
      () => undefined,
    )({
      logger: defaultLogger(),
    } as never);
    const dialer = factory.createStreamMuxer(outbound);
    // The responder's muxer exists, but nothing listens for its streams yet: libp2p's upgrader
    // is still between creating it and creating the connection.
    const responder: StreamMuxer = factory.createStreamMuxer(inbound);
    const opened = await Promise.all(
      Array.from({ length: 40 }, () => dialer.createStream({ protocol: '/test/1.0.0' })),
    );
    for (const s of opened) s.send(new Uint8Array([1]));
    await waitFor(
      () => responder.streams.length === 40 || responder.status !== 'open',
      WAIT_MS,
      'the 40 streams at the responder',
    );
    expect(responder.status).toBe('open');
    const handed: Stream[] = [];
    responder.addEventListener('stream', (e) => handed.push(e.detail));
    await waitFor(() => handed.length === 40, WAIT_MS, 'the 40 streams handed over');
    expect(dialer.status).toBe('open');
  });
});

describe('a connection whose muxer stops', () => {
  const hosts: CidxLibp2p[] = [];
  afterEach(async () => {
    await Promise.allSettled(hosts.splice(0).map((h) => h.stop()));
  });

  const stacks: [string, Partial<HostOptions>][] = [
    ['memory, plaintext', { transport: 'memory', encryption: 'plaintext', simulation: true }],
    ['TCP 127.0.0.1, noise', { transport: 'tcp', encryption: 'noise', pingIntervalMs: 0 }],
  ];
  const cases = stacks.flatMap(([name, o]) =>
    (['aborts', 'is closed by a node without the guard'] as const).map(
      (how) => [how, name, o] as const,
    ),
  );
  it.each(cases)(
    'that %s closes at both ends; the next request dials anew (%s)',
    async (how, _, o) => {
      const make = async () => {
        const h = await createHost({
          transport: 'memory',
          listen:
            o.transport === 'tcp'
              ? ['/ip4/127.0.0.1/tcp/0']
              : [`/memory/guard-${randomBytes(4).toString('hex')}`],
          reachability: 'public',
          ...o,
        } as HostOptions);
        hosts.push(h);
        await h.start();
        return h;
      };
      const [a, b] = [await make(), await make()];
      const first = await a.dial(b.getMultiaddrs()[0] as never);
      const closed = (h: CidxLibp2p) =>
        new Promise<Connection>((resolve) =>
          h.addEventListener('connection:close', (e) => resolve(e.detail), { once: true }),
        );
      const [atA, atB] = [closed(a), closed(b)];
      const muxer = (first as unknown as { muxer: StreamMuxer }).muxer;
      if (how === 'aborts') {
        // What yamux does on a protocol error, too many early streams or a peer's error GoAway.
        muxer.abort(new Error('stopped'));
        expect(first.status).not.toBe('open');
      } else {
        // Closed as a node without the guard closes it: its streams, then a GoAway without error,
        // and the connection left open. The peer's muxer stops on the GoAway; its guard closes.
        await waitFor(() => b.getConnections(a.peerId).length > 0, WAIT_MS, 'the connection at b');
        const [atB] = b.getConnections(a.peerId);
        const theirs = (atB as unknown as { muxer: StreamMuxer }).muxer;
        await (Object.getPrototypeOf(muxer) as StreamMuxer).close.call(muxer);
        await waitFor(() => theirs.status !== 'open', WAIT_MS, "b's muxer to stop");
        expect(atB?.status).not.toBe('open');
      }
      expect((await atA).id).toBe(first.id);
      await atB;
      expect(a.getConnections(b.peerId)).toEqual([]);
      // A request to the peer opens a new connection instead of failing on the dead one.
      await a.services.ping.ping(b.peerId);
      const [second] = a.getConnections(b.peerId);
      expect(second?.id).not.toBe(first.id);
    },
  );
});
