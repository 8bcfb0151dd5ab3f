import { describe, expect, it } from 'vitest';
import {
  backOffAfterRefusal,
  backoffCounts,
  refusalBackoffMissing,
} from '../../src/net/refusal-backoff.ts';
import { memoryHosts } from '../support/memory-hosts.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

/**
 * A peer that refused a connection (src/net/refusal-backoff.ts), on real libp2p hosts over the
 * memory transport: a hub at its connection limit refuses, as libp2p does.
 */
describe('dialling a peer that refused a connection', () => {
  const make = memoryHosts('back');
  /** A hub holding `limit` connections, all idle: the next peer is refused. */
  const fullHub = async (limit: number) => {
    const hub = await make({ maxConnections: limit });
    for (let i = 0; i < limit; i++) {
      const p = await make({ reachability: 'private' });
      await p.dial(hub.getMultiaddrs()[0] as never);
    }
    await waitFor(
      () => hub.getConnections().length === limit,
      WAIT_MS,
      'the hub holding its limit',
    );
    return hub;
  };

  it('is not dialled again until the backoff ends, then dialled', async () => {
    const hub = await fullHub(2);
    const dialler = await make({ refusedBackoffMs: 0, reachability: 'private' });
    let t = 0;
    const counts = backOffAfterRefusal(dialler, 1000, () => t);
    expect(refusalBackoffMissing(dialler)).toEqual([]);
    const hubAddr = hub.getMultiaddrs()[0];
    await dialler.peerStore.merge(hub.peerId, { multiaddrs: hubAddr ? [hubAddr] : [] });

    await expect(dialler.dial(hub.peerId)).rejects.toThrow(
      expect.objectContaining({ name: 'EncryptionFailedError' }),
    );
    expect(counts).toEqual({ refusals: 1, skipped: 0 });
    // Within the backoff: not dialled (the hub sees no new connection, so refuses nothing).
    t = 999;
    await expect(dialler.dial(hub.peerId)).rejects.toThrow(
      expect.objectContaining({ name: 'DialBackoffError' }),
    );
    // A stream asked for (as kad-dht and cidx's client ask) is not dialled either.
    await expect(dialler.dialProtocol(hub.peerId, '/cidx/test/1')).rejects.toThrow(
      expect.objectContaining({ name: 'DialBackoffError' }),
    );
    expect(counts?.skipped).toBe(2);
    expect(counts?.refusals).toBe(1);
    // After it: dialled again, and refused again.
    t = 1000;
    await expect(dialler.dial(hub.peerId)).rejects.toThrow(
      expect.objectContaining({ name: 'EncryptionFailedError' }),
    );
    expect(counts?.refusals).toBe(2);
    // Once the hub has room, the first dial after the backoff connects.
    await Promise.all(hub.getConnections().map((c) => c.close()));
    await waitFor(() => hub.getConnections().length === 0, WAIT_MS, 'the hub empty');
    t = 2000;
    await expect(dialler.dial(hub.peerId)).resolves.toBeDefined();
  });

  it('starts no backoff for a dial that fails otherwise, and is on by default', async () => {
    const dialler = await make({ reachability: 'private' });
    const counts = backoffCounts(dialler);
    expect(counts).toEqual({ refusals: 0, skipped: 0 });
    const gone = await make();
    const addr = gone.getMultiaddrs()[0];
    await dialler.peerStore.merge(gone.peerId, { multiaddrs: addr ? [addr] : [] });
    await gone.stop();
    for (let i = 0; i < 2; i++) {
      const err = await dialler.dial(gone.peerId).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.name).toBeDefined();
      expect(err?.name).not.toBe('DialBackoffError');
    }
    expect(counts).toEqual({ refusals: 0, skipped: 0 });
    // 0: nothing installed, libp2p dials as it does alone.
    const plain = await make({ refusedBackoffMs: 0 });
    expect(refusalBackoffMissing(plain)).toHaveLength(1);
  });
});
