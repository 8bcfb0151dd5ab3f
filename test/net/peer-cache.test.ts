import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Peer, PeerId, PeerStore } from '@libp2p/interface';
import { defaultLogger } from '@libp2p/logger';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { persistentPeerStore } from '@libp2p/peer-store';
import { multiaddr } from '@multiformats/multiaddr';
import { MemoryDatastore } from 'datastore-core';
import type { Key } from 'interface-datastore';
import { TypedEventEmitter } from 'main-event';
import { describe, expect, it } from 'vitest';
import { INDEX_PROTOCOL } from '../../src/net/codec.ts';
import {
  cachePeerRecords,
  cachesPeerRecords,
  FRESH_MS,
  MAX_RECORDS,
  MAX_SPEAKS,
  speaksIndex,
} from '../../src/net/peer-cache.ts';

/** libp2p's own peer store on a datastore that counts its reads and writes. */
class CountingDatastore extends MemoryDatastore {
  gets = 0;
  puts = 0;
  override get(key: Key, options?: Parameters<MemoryDatastore['get']>[1]) {
    this.gets++;
    return super.get(key, options);
  }
  override put(key: Key, value: Uint8Array, options?: Parameters<MemoryDatastore['put']>[2]) {
    this.puts++;
    return super.put(key, value, options);
  }
}

async function newPeerId(): Promise<PeerId> {
  return peerIdFromPrivateKey(await generateKeyPair('Ed25519'));
}

async function store(cached: boolean, clock: { t: number }) {
  const datastore = new CountingDatastore();
  const events = new TypedEventEmitter();
  const updates: string[] = [];
  events.addEventListener('peer:update', (e) =>
    updates.push((e as CustomEvent<{ peer: Peer }>).detail.peer.id.toString()),
  );
  const s = persistentPeerStore({
    peerId: await newPeerId(),
    datastore,
    events,
    logger: defaultLogger(),
  } as never) as PeerStore;
  if (cached) cachePeerRecords(s, () => clock.t);
  return { s, datastore, updates };
}

/** `count` new peers merged into the store one after the other, each speaking `protocol`. */
async function merged(s: PeerStore, count: number, protocol: string): Promise<PeerId[]> {
  const ids: PeerId[] = [];
  for (let i = 0; i < count; i++) {
    const id = await newPeerId();
    ids.push(id);
    await s.merge(id, { protocols: [protocol] });
  }
  return ids;
}

/** What a caller sees of a record: compared between a cached and a plain store. */
function seen(p: Peer) {
  return {
    addresses: p.addresses.map((a) => `${a.multiaddr.toString()} ${a.isCertified}`),
    protocols: p.protocols,
    tags: [...p.tags].map(([k, t]) => `${k}=${t.value}`),
  };
}

describe('cachePeerRecords', () => {
  it('answers reads of a record just read or written from memory, and writes what changes', async () => {
    const clock = { t: 1_000_000 };
    const { s, datastore } = await store(true, clock);
    expect(cachesPeerRecords(s)).toBe(true);
    const id = await newPeerId();
    await s.merge(id, { multiaddrs: [multiaddr('/memory/a')], protocols: ['/x/1'] });
    const gets = datastore.gets;
    const puts = datastore.puts;
    expect(seen(await s.get(id)).protocols).toEqual(['/x/1']);
    expect(datastore.gets).toBe(gets);
    // Nothing new: no write, the same record.
    await s.merge(id, { multiaddrs: [multiaddr(`/memory/a/p2p/${id}`)], protocols: ['/x/1'] });
    await s.merge(id, { tags: {} });
    expect(datastore.puts).toBe(puts);
    // Something new: written, and read back.
    await s.merge(id, { protocols: ['/y/1'] });
    expect(datastore.puts).toBe(puts + 1);
    expect(seen(await s.get(id)).protocols).toEqual(['/x/1', '/y/1']);
    // A tag with a lifetime is renewed by writing it.
    await s.merge(id, { tags: { t: { value: 5, ttl: 60_000 } } });
    await s.merge(id, { tags: { t: { value: 5, ttl: 60_000 } } });
    expect(datastore.puts).toBe(puts + 3);
  });

  it('reads the store again after FRESH_MS, and skips a merge only soon after a write', async () => {
    const clock = { t: 1_000_000 };
    const { s, datastore } = await store(true, clock);
    const id = await newPeerId();
    await s.merge(id, { protocols: ['/x/1'] });
    const gets = datastore.gets;
    clock.t += FRESH_MS - 1;
    await s.get(id);
    expect(datastore.gets).toBe(gets);
    clock.t += 1;
    await s.get(id);
    expect(datastore.gets).toBe(gets + 1);
    // A record kept by a read does not skip a merge: when it was last written is not known.
    const puts = datastore.puts;
    await s.merge(id, { protocols: ['/x/1'] });
    expect(datastore.puts).toBe(puts + 1);
    clock.t += FRESH_MS - 1;
    await s.merge(id, { protocols: ['/x/1'] });
    expect(datastore.puts).toBe(puts + 1);
    clock.t += 1;
    await s.merge(id, { protocols: ['/x/1'] });
    expect(datastore.puts).toBe(puts + 2);
  });

  it('never answers a read from memory while a write of the peer is under way', async () => {
    const clock = { t: 1_000_000 };
    const { s } = await store(true, clock);
    const id = await newPeerId();
    await s.merge(id, { protocols: ['/x/1'] });
    const writing = s.merge(id, { protocols: ['/y/1'] });
    const read = s.get(id);
    await writing;
    expect(seen(await read).protocols).toEqual(['/x/1', '/y/1']);
    // A read that began before a write does not leave its older record behind.
    const early = s.get(id);
    const later = s.patch(id, { protocols: ['/z/1'] });
    await Promise.all([early, later]);
    expect(seen(await s.get(id)).protocols).toEqual(['/z/1']);
    await s.delete(id);
    await expect(s.get(id)).rejects.toThrow();
  });

  it('dispatches peer:update for the changes it writes, as before', async () => {
    const clock = { t: 1_000_000 };
    const { s, updates } = await store(true, clock);
    const id = await newPeerId();
    await s.merge(id, { protocols: ['/x/1'] });
    await s.merge(id, { protocols: ['/x/1'] });
    await s.merge(id, { protocols: ['/y/1'] });
    expect(updates).toEqual([id.toString(), id.toString()]);
  });

  it('drops its records once they are past FRESH_MS: an idle node holds none', async () => {
    const clock = { t: 1_000_000 };
    const plain = await store(false, clock);
    const timers: (() => void)[] = [];
    const cache = cachePeerRecords(
      plain.s,
      () => clock.t,
      (run) => timers.push(run),
    );
    const [x, y] = [await newPeerId(), await newPeerId()];
    await plain.s.merge(x, { protocols: ['/x/1'] });
    clock.t += FRESH_MS / 2;
    await plain.s.merge(y, { protocols: ['/x/1'] });
    expect(cache.size()).toBe(2);
    expect(timers).toHaveLength(1);
    clock.t += FRESH_MS / 2;
    timers.shift()?.();
    expect(cache.size()).toBe(1);
    expect(timers).toHaveLength(1);
    clock.t += FRESH_MS / 2;
    timers.shift()?.();
    expect(cache.size()).toBe(0);
    expect(timers).toHaveLength(0);
  });

  it(`keeps at most ${MAX_RECORDS} records`, async () => {
    const clock = { t: 1_000_000 };
    const { s, datastore } = await store(true, clock);
    const ids = await merged(s, MAX_RECORDS + 1, '/x/1');
    const gets = datastore.gets;
    await s.get(ids[MAX_RECORDS] as PeerId);
    expect(datastore.gets).toBe(gets);
    await s.get(ids[0] as PeerId);
    expect(datastore.gets).toBe(gets + 1);
  });

  it('says whether a peer speaks cidx from memory past FRESH_MS, and as the store says', async () => {
    const clock = { t: 1_000_000 };
    const { s, datastore } = await store(true, clock);
    const [x, y, z] = [await newPeerId(), await newPeerId(), await newPeerId()];
    await s.merge(x, { protocols: ['/x/1', INDEX_PROTOCOL] });
    await s.merge(y, { protocols: ['/x/1'] });
    await s.merge(z, { multiaddrs: [multiaddr('/memory/z')] });
    clock.t += 10 * FRESH_MS;
    const gets = datastore.gets;
    expect(await speaksIndex(s, x)).toBe('yes');
    expect(await speaksIndex(s, y)).toBe('no');
    expect(await speaksIndex(s, z)).toBe('unknown');
    expect(datastore.gets).toBe(gets);
    // A peer the store has never held.
    expect(await speaksIndex(s, await newPeerId())).toBe('unknown');
    // A write that takes cidx's protocol away is what the next ask sees; one under way is
    // waited for through the store.
    await s.patch(x, { protocols: ['/x/1'] });
    expect(await speaksIndex(s, x)).toBe('no');
    const writing = s.merge(y, { protocols: [INDEX_PROTOCOL] });
    const asked = speaksIndex(s, y);
    await writing;
    expect(await asked).toBe('yes');
    await s.delete(y);
    expect(await speaksIndex(s, y)).toBe('unknown');
  });

  it(`says it from memory for the ${MAX_SPEAKS} peers last read or written`, async () => {
    const clock = { t: 1_000_000 };
    const { s, datastore } = await store(true, clock);
    const ids = await merged(s, MAX_SPEAKS + 1, INDEX_PROTOCOL);
    clock.t += 10 * FRESH_MS;
    const gets = datastore.gets;
    expect(await speaksIndex(s, ids[MAX_SPEAKS] as PeerId)).toBe('yes');
    expect(await speaksIndex(s, ids[1] as PeerId)).toBe('yes');
    expect(datastore.gets).toBe(gets);
    expect(await speaksIndex(s, ids[0] as PeerId)).toBe('yes');
    expect(datastore.gets).toBe(gets + 1);
  });

  it('gives every caller what the plain store gives, over a random run of calls', async () => {
    const clock = { t: 1_000_000 };
    const plain = await store(false, clock);
    const cached = await store(true, clock);
    const ids = await Promise.all([0, 1, 2, 3].map(() => newPeerId()));
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const addrs = ['/memory/a', '/memory/b', '/memory/c'];
    const protocols = ['/x/1', INDEX_PROTOCOL, '/z/1'];
    const both = async <T>(f: (s: PeerStore) => Promise<T>) => {
      const results = await Promise.allSettled([f(plain.s), f(cached.s)]);
      const [a, b] = results.map((r) =>
        r.status === 'fulfilled'
          ? (r.value as Peer | undefined)?.protocols
            ? seen(r.value as Peer)
            : r.value
          : 'rejected',
      );
      expect(b).toEqual(a);
    };
    for (let step = 0; step < 400; step++) {
      const id = ids[rnd(ids.length)] as PeerId;
      const op = rnd(7);
      const which = rnd(3);
      const addr = multiaddr(addrs[which] as string);
      const protocol = protocols[which] as string;
      clock.t += rnd(3) * 1000;
      if (op === 0) await both((s) => s.get(id));
      else if (op === 1) await both((s) => s.merge(id, { multiaddrs: [addr] }));
      else if (op === 2) await both((s) => s.merge(id, { protocols: [protocol] }));
      else if (op === 3) await both((s) => s.merge(id, { tags: { k: { value: which } } }));
      else if (op === 4) await both((s) => s.patch(id, { protocols: [protocol] }));
      else if (op === 5 && which === 0) await both((s) => s.delete(id));
      else if (op === 5) await both((s) => speaksIndex(s, id));
      else await both((s) => s.getInfo(id).then((i) => ({ addrs: i.multiaddrs.map(String) })));
    }
    expect(cached.updates).toEqual(plain.updates);
    expect(cached.datastore.puts).toBeLessThan(plain.datastore.puts);
    expect(cached.datastore.gets).toBeLessThan(plain.datastore.gets);
  });
});
