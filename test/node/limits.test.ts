import { randomBytes } from 'node:crypto';
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import { lpStream } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attributeKey } from '../../src/keys/rehash.ts';
import { IndexClient, RemoteError } from '../../src/net/client.ts';
import { blobToWire, INDEX_PROTOCOL, type Request, WIRE_VERSION } from '../../src/net/codec.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { Meter } from '../../src/net/meter.ts';
import { communityId, signRecord } from '../../src/net/records.ts';
import { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { NodeMetrics } from '../../src/rpc/metrics.ts';
import { FakeClock } from '../support/clock.ts';
import { startSwarm, stopAll, WAIT_MS, waitFor } from '../support/swarm.ts';

/** Resource limits a node enforces against its peers, each checked over the wire. */
describe('per-peer limits', () => {
  let nodes: CidxNode[];
  // Rate windows follow the nodes' clock: each test moves it to a fresh window.
  const clock = new FakeClock();
  /** A peer that speaks only when told to (no cidx node behind it sends requests of its own). */
  let flooder: CidxLibp2p;
  const client = (n: CidxNode | CidxLibp2p, maxFrameBytes = 1 << 20) =>
    new IndexClient(
      'libp2p' in n ? n.libp2p : n,
      { timeoutMs: 30_000, maxFrameBytes },
      new Meter(),
    );
  const outcome = (p: Promise<unknown>) =>
    p.then(
      (r) => (r as { outcome?: string }).outcome ?? 'ok',
      (e: unknown) => (e instanceof RemoteError ? e.code : `error: ${(e as Error).message}`),
    );

  beforeAll(async () => {
    nodes = await startSwarm(3, {
      swarm: { index: { mode: 'attribute' } },
      limits: { peerRequestsPerSecond: 10, quotaPerOwnerPerKey: 2, maxFrameBytes: 64 * 1024 },
      clock,
    });
    flooder = await createHost({
      transport: 'memory',
      listen: [`/memory/flooder-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
    });
    await flooder.start();
    await flooder.dial(multiaddr(node(b).addrs[0]));
  });
  afterAll(async () => {
    await flooder?.stop();
    await stopAll(nodes);
  });
  beforeEach(async () => {
    await clock.advance(1000);
  });

  const [a, b, c] = [0, 1, 2];
  const node = (i: number) => nodes[i] as CidxNode;
  const params = (): Request => ({ v: WIRE_VERSION, swarm: node(b).swarm.digest, t: 'params' });

  it('answers a flooding peer `busy` beyond its rate, while other peers are served', async () => {
    const flood = client(flooder);
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => outcome(flood.request(node(b).peerId, params()))),
    );
    // The clock stands still: all 40 fall in one window, of which 10 pass.
    expect(burst.filter((o) => o === 'ok')).toHaveLength(10);
    expect(burst.filter((o) => o === 'busy')).toHaveLength(30);
    expect(await outcome(client(node(c)).request(node(b).peerId, params()))).toBe('ok');
    // Still the same window a moment later…
    await clock.advance(999);
    expect(await outcome(flood.request(node(b).peerId, params()))).toBe('busy');
    // …and the next one serves the flooding peer again.
    await clock.advance(1);
    expect(await outcome(flood.request(node(b).peerId, params()))).toBe('ok');
  });

  it("refuses an owner key's descriptors under one key beyond its quota", async () => {
    const key = await generateKeyPair('Ed25519');
    const profile = parseProfile({ weights: { quota: 1, test: 0.5 } });
    const dhtKey = attributeKey('quota');
    const send = client(node(a));
    const results: string[] = [];
    for (let i = 0; i < 4; i++) {
      const nonce = new Uint8Array(randomBytes(16));
      const id = communityId(publicKeyToProtobuf(key.publicKey), nonce);
      const rec = await signRecord(key, { kind: 'descriptor', id, nonce, version: 1, profile });
      const req: Request = {
        v: WIRE_VERSION,
        swarm: node(b).swarm.digest,
        t: 'store',
        key: dhtKey,
        rec: blobToWire(rec),
        s: 5,
      };
      results.push(await outcome(send.request(node(b).peerId, req)));
    }
    expect(results).toEqual(['stored', 'stored', 'quota', 'quota']);
    expect(node(b).table.ownerEntries(publicKeyToProtobuf(key.publicKey))).toBe(2);
  });

  it('refuses an oversized query profile by its counts and keeps error messages decodable', async () => {
    // 5000 one-letter attributes fit in the frame but not in the 4096-attribute limit.
    const many: [string, number][] = Array.from({ length: 5000 }, (_, i) => [i.toString(36), 1]);
    const query = (w: [string, number][]): Request => ({
      v: WIRE_VERSION,
      swarm: node(b).swarm.digest,
      t: 'query',
      key: attributeKey('x'),
      profile: { w },
      k: 5,
    });
    const send = client(node(a));
    const err = await send.request(node(b).peerId, query(many)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).code).toBe('bad-request');
    expect((err as RemoteError).message).toMatch(/5000 attributes/);
    // An attribute of 10,000 characters makes a long error; it is cut to fit the response
    // schema, so the requester still reads a clear `bad-request`.
    const long = await send
      .request(node(b).peerId, query([['x'.repeat(10_000), 1]]))
      .catch((e: unknown) => e);
    expect(long).toBeInstanceOf(RemoteError);
    expect((long as RemoteError).code).toBe('bad-request');
  });

  it('drops a frame over the size limit and keeps serving', async () => {
    // ≈ 140 KB encoded: over the receiver's frame limit (and its attribute limit, which it
    // never gets to check).
    const big = parseProfile(
      {
        weights: Object.fromEntries(Array.from({ length: 8000 }, (_, i) => [`attribute-${i}`, 1])),
      },
      { maxAttributes: 10_000 },
    );
    const req: Request = {
      v: WIRE_VERSION,
      swarm: node(b).swarm.digest,
      t: 'query',
      key: attributeKey('x'),
      profile: { w: [...big.weights.entries()] },
      k: 5,
    };
    // The sender allows 1 MiB; the receiver allows 64 KiB and resets the stream.
    expect(await outcome(client(node(a)).request(node(b).peerId, req))).toMatch(/^error: /);
    expect(await outcome(client(node(a)).request(node(b).peerId, params()))).toBe('ok');
  });
});

describe('responder timeout', () => {
  it('resets a stream that sends nothing within the request timeout', async () => {
    const nodes = await startSwarm(2, { timing: { requestTimeoutMs: 1500 } });
    try {
      const [a, b] = nodes as [CidxNode, CidxNode];
      const stream = await a.libp2p.dialProtocol(b.peerId, INDEX_PROTOCOL);
      const lp = lpStream(stream);
      // The responder waits for a request no longer than requestTimeoutMs (1.5 s here), then
      // aborts the stream: the read fails with the responder's reset, long before this side's
      // own bound (which only keeps a broken responder from hanging the test).
      const err = await lp.read({ signal: AbortSignal.timeout(45_000) }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.name).toBe('StreamResetError');
    } finally {
      await stopAll(nodes);
    }
  });
});

describe('requester timeout', () => {
  it('gives up on a peer that accepts the stream and never answers, within its timeout', async () => {
    const nodes = await startSwarm(2);
    try {
      const [a, b] = nodes as [CidxNode, CidxNode];
      // b's cidx handler is replaced by one that reads nothing and never writes.
      await b.libp2p.unhandle(INDEX_PROTOCOL);
      await b.libp2p.handle(INDEX_PROTOCOL, () => new Promise(() => {}));
      const req: Request = { v: WIRE_VERSION, swarm: b.swarm.digest, t: 'params' };
      // One deadline bounds the dial, the write and the read of an exchange: the request ends
      // with the deadline's timeout, not with an answer and not hanging.
      const err = await new IndexClient(
        a.libp2p,
        { timeoutMs: 1000, maxFrameBytes: 1 << 20 },
        new Meter(),
      )
        .request(b.peerId, req)
        .catch((e: unknown) => e);
      expect((err as Error).name).toBe('TimeoutError');
      expect((err as Error).message).toMatch(/timed out after 1000 ms/);
    } finally {
      await stopAll(nodes);
    }
  });
});

describe('concurrent streams', () => {
  it('refuses inbound cidx streams on one connection beyond maxInboundStreams', async () => {
    const nodes = await startSwarm(2, { limits: { maxInboundStreams: 2 } });
    try {
      const [a, b] = nodes as [CidxNode, CidxNode];
      // Two silent streams are held open by the responder (waiting for their request); their
      // protocol negotiated first, since a stream named with its first bytes is not yet open at
      // the responder while it sends nothing…
      const held = [
        await a.libp2p.dialProtocol(b.peerId, INDEX_PROTOCOL, { negotiateFully: true }),
        await a.libp2p.dialProtocol(b.peerId, INDEX_PROTOCOL, { negotiateFully: true }),
      ];
      // …so a third on the same connection is refused, and a request fails rather than queue.
      const third = await a.libp2p
        .dialProtocol(b.peerId, INDEX_PROTOCOL)
        .then((s) => lpStream(s).read({ signal: AbortSignal.timeout(45_000) }))
        .then(
          () => 'answered',
          (e: unknown) => (e as Error).name,
        );
      expect(third).not.toBe('answered');
      expect(third).not.toBe('TimeoutError');
      for (const s of held) s.abort(new Error('done'));
    } finally {
      await stopAll(nodes);
    }
  });
});

describe('connection limit', () => {
  it('refuses inbound connections past limits.maxConnections, and takes them below it', async () => {
    const metrics = new NodeMetrics();
    const hub = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/lim-hub-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
      limits: { maxConnections: 8 },
      metrics: metrics.libp2pMetrics(),
    });
    const peers: CidxLibp2p[] = [];
    try {
      await hub.start();
      const dial = async () => {
        const p = await createHost({
          transport: 'memory',
          listen: [`/memory/lim-${randomBytes(4).toString('hex')}`],
          encryption: 'plaintext',
        });
        peers.push(p);
        await p.start();
        return p.dial(multiaddr(hub.addrs[0])).then(
          () => 'open',
          (e: unknown) => (e as Error).name,
        );
      };
      for (let i = 0; i < 8; i++) expect(await dial()).toBe('open');
      expect(hub.libp2p.getConnections()).toHaveLength(8);
      // The ninth is refused at the hub; the dialler sees its connection fail.
      expect(await dial()).not.toBe('open');
      expect(hub.libp2p.getConnections()).toHaveLength(8);
      // What an operator sees on /metrics: the refusal, counted by libp2p.
      const { text } = await metrics.scrape();
      expect(text).toContain(
        'libp2p_connection_manager_dials_inbound_errors_total{libp2p_connection_manager_dials_inbound_errors_total="ConnectionDeniedError"} 1',
      );
      // One closed makes room again.
      await peers[0]?.hangUp(hub.peerId);
      await waitFor(() => hub.libp2p.getConnections().length === 7, WAIT_MS, 'a closed slot');
      expect(await dial()).toBe('open');
    } finally {
      await Promise.allSettled(peers.map((p) => p.stop()));
      await hub.stop();
    }
  });
});
