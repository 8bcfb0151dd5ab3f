import { randomBytes } from 'node:crypto';
import { publicKeyToProtobuf } from '@libp2p/crypto/keys';
import { describe, expect, it } from 'vitest';
import { IndexTable } from '../../src/index/index-table.ts';
import type { ContactsRecord, RemovalRecord, TombstoneRecord } from '../../src/index/records.ts';
import { getSimilarCommunities, storeDescriptor } from '../../src/index/responder.ts';
import { selectSimilar } from '../../src/index/select-similar.ts';
import { communityId } from '../../src/net/records.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { hex } from '../../src/util/bytes.ts';
import { descriptor, owner, signed } from '../support/records.ts';

const KEY = new Uint8Array([1, 2, 3]);
const K = hex(KEY);
const lifetimes = { recordTtlMs: 1000, tombstoneTtlMs: 5000 };

describe('IndexTable version rules', () => {
  it('stores, refreshes the same payload, refuses a different payload of the same version', async () => {
    const o = await owner();
    const t = new IndexTable(lifetimes);
    const v1 = await descriptor(o, 1, { a: 1 });
    expect(t.putDescriptor(K, v1, 0)).toBe('stored');
    expect(t.putDescriptor(K, v1, 500)).toBe('refreshed');
    expect([...t.descriptors(K, 1400)]).toHaveLength(1); // refreshed at 500: lives until 1500
    expect(t.putDescriptor(K, await descriptor(o, 1, { b: 1 }), 600)).toBe('conflict');
    expect([...t.descriptors(K, 600)][0]?.profile.has('a')).toBe(true);
  });

  it('replaces an older version and refuses a replayed one', async () => {
    const o = await owner();
    const t = new IndexTable(lifetimes);
    const v1 = await descriptor(o, 1, { a: 1 });
    const v2 = await descriptor(o, 2, { a: 1, b: 1 });
    t.putDescriptor(K, v1, 0);
    expect(t.putDescriptor(K, v2, 1)).toBe('stored');
    expect(t.putDescriptor(K, v1, 2)).toBe('stale');
    expect([...t.descriptors(K, 3)].map((d) => d.version)).toEqual([2]);
  });

  it('removes by a key-bound removal and then refuses older copies', async () => {
    const o = await owner();
    const t = new IndexTable(lifetimes);
    t.putDescriptor(K, await descriptor(o, 1, { a: 1 }), 0);
    const removal = (await signed(o.key, {
      kind: 'removal',
      id: o.id,
      nonce: o.nonce,
      version: 2,
      key: KEY,
    })) as RemovalRecord;
    expect(t.removeDescriptor(removal, 1)).toBe('removed');
    expect([...t.descriptors(K, 2)]).toEqual([]);
    expect(t.putDescriptor(K, await descriptor(o, 1, { a: 1 }), 3)).toBe('stale');
    expect(t.putDescriptor(K, await descriptor(o, 3, { a: 1 }), 4)).toBe('stored');
    // an old removal cannot take a newer version off
    expect(t.removeDescriptor(removal, 5)).toBe('stale');
  });

  it('a tombstone drops every key and the contacts, and blocks every later write', async () => {
    const o = await owner();
    const t = new IndexTable(lifetimes);
    const other = hex(new Uint8Array([9]));
    t.putDescriptor(K, await descriptor(o, 1, { a: 1 }), 0);
    t.putDescriptor(other, await descriptor(o, 1, { a: 1 }), 0);
    const contacts = (await signed(o.key, {
      kind: 'contacts',
      id: o.id,
      nonce: o.nonce,
      version: 1,
      addrs: ['/memory/x/p2p/12D3KooWP53mVYz1oD8KZ6hfeVb7Mw6RZbPGXxVVgD3S3oo2RFeR'],
    })) as ContactsRecord;
    expect(t.putContacts(contacts, undefined, 0)).toBe('stored');
    const tomb = (await signed(o.key, {
      kind: 'tombstone',
      id: o.id,
      nonce: o.nonce,
      version: 2,
    })) as TombstoneRecord;
    expect(t.putTombstone(tomb, 1)).toBe('stored');
    expect([...t.descriptors(K, 2)]).toEqual([]);
    expect([...t.descriptors(other, 2)]).toEqual([]);
    expect(t.contacts(o.id, 2).tombstone?.version).toBe(2);
    expect(t.putDescriptor(K, await descriptor(o, 9, { a: 1 }), 3)).toBe('dissolved');
    expect(t.putContacts(contacts, undefined, 3)).toBe('dissolved');
    // the tombstone outlives the records' lifetime, then goes
    expect(t.contacts(o.id, 4000).tombstone).toBeDefined();
    t.expire(6000);
    expect(t.tombstone(o.id, 6000)).toBeUndefined();
  });

  it('expires records after their lifetime and journals every change', async () => {
    const o = await owner();
    const t = new IndexTable(lifetimes);
    t.putDescriptor(K, await descriptor(o, 1, { a: 1 }), 0);
    expect(t.drainChanges().map((c) => c.op)).toEqual(['put-descriptor']);
    expect([...t.descriptors(K, 999)]).toHaveLength(1);
    expect([...t.descriptors(K, 1000)]).toHaveLength(0);
    expect(t.expire(1000)).toBe(1);
    expect(t.drainChanges()).toEqual([{ op: 'delete-entry', key: K, id: o.id }]);
    expect(t.stats()).toEqual({ descriptors: 0, keys: 0, contacts: 0, tombstones: 0, bytes: 0 });
  });
});

describe('responder (algorithms 4.12, 4.13, 4.15)', () => {
  it('returns the k most similar, best first, ties by id, never similarity 0', async () => {
    const t = new IndexTable(lifetimes);
    const owners = await Promise.all([owner(), owner(), owner(), owner()]);
    const profiles: Record<string, number>[] = [
      { a: 1, b: 1 },
      { a: 1 },
      { a: 0.5, c: 1 },
      { z: 1 },
    ];
    const recs = await Promise.all(
      owners.map((o, i) => descriptor(o, 1, profiles[i] as Record<string, number>)),
    );
    for (const r of recs) t.putDescriptor(K, r, 0);
    const query = parseProfile({ weights: { a: 1, b: 1 } });
    const ranked = getSimilarCommunities(t, KEY, query, 10, 1);
    expect(ranked.map((r) => r.similarity)).toEqual([1, 0.5, 0.25]);
    expect(ranked[0]?.record.id).toBe(recs[0]?.id);
    expect(getSimilarCommunities(t, KEY, query, 2, 1)).toHaveLength(2);
    const tie = selectSimilar([recs[1], recs[1]].filter(Boolean) as never, query, 5);
    expect(tie).toHaveLength(2);
  });

  it('StoreDescriptor selects the s most similar others before storing', async () => {
    const t = new IndexTable(lifetimes);
    const [a, b] = await Promise.all([owner(), owner()]);
    const ra = await descriptor(a, 1, { x: 1, y: 1 });
    expect(storeDescriptor(t, KEY, ra, 5, 0).similar).toEqual([]);
    const rb = await descriptor(b, 1, { x: 1 });
    const { outcome, similar } = storeDescriptor(t, KEY, rb, 5, 0);
    expect(outcome).toBe('stored');
    expect(similar.map((s) => [s.record.id, s.similarity])).toEqual([[a.id, 0.5]]);
    // a refused write learns nothing
    expect(storeDescriptor(t, KEY, await descriptor(b, 1, { q: 1 }), 5, 0)).toEqual({
      outcome: 'conflict',
      similar: [],
    });
  });
});

describe('IndexTable quotas per owner key', () => {
  const quotas = { perOwnerPerKey: 2, perOwner: 3 };
  // Another community of the same owner key: a fresh nonce, the id derived from both.
  const community = async (key: Awaited<ReturnType<typeof owner>>['key']) => {
    const nonce = new Uint8Array(randomBytes(16));
    return { key, nonce, id: communityId(publicKeyToProtobuf(key.publicKey), nonce) };
  };

  it('refuses an owner more descriptors under one key, and in all, than its quota', async () => {
    const t = new IndexTable(lifetimes, quotas);
    const o = await owner();
    const [a, b, c] = [o, await community(o.key), await community(o.key)];
    const other = await owner();
    expect(t.putDescriptor(K, await descriptor(a, 1, { x: 1 }), 0)).toBe('stored');
    expect(t.putDescriptor(K, await descriptor(b, 1, { x: 1 }), 0)).toBe('stored');
    // A third community of the same owner under the same key is over perOwnerPerKey…
    expect(t.putDescriptor(K, await descriptor(c, 1, { x: 1 }), 0)).toBe('quota');
    // …another owner is not affected…
    expect(t.putDescriptor(K, await descriptor(other, 1, { x: 1 }), 0)).toBe('stored');
    // …a newer version of a stored one replaces it without counting twice…
    expect(t.putDescriptor(K, await descriptor(a, 2, { x: 2 }), 1)).toBe('stored');
    expect(t.ownerEntries(publicKeyToProtobuf(o.key.publicKey))).toBe(2);
    // …and under another key the owner has one entry of its total quota of 3 left.
    const K2 = hex(new Uint8Array([9]));
    expect(t.putDescriptor(K2, await descriptor(c, 1, { y: 1 }), 1)).toBe('stored');
    expect(t.putDescriptor(K2, await descriptor(await community(o.key), 1, { y: 1 }), 1)).toBe(
      'quota',
    );
    expect([...t.descriptors(K, 1)].map((d) => d.id).sort()).toEqual([a.id, b.id, other.id].sort());
  });

  it('frees quota when entries expire, are removed by a tombstone, and counts alike after a rebuild', async () => {
    const t = new IndexTable(lifetimes, quotas);
    const o = await owner();
    const b = await community(o.key);
    const d1 = await descriptor(o, 1, { x: 1 });
    expect(t.putDescriptor(K, d1, 0)).toBe('stored');
    expect(t.putDescriptor(K, await descriptor(b, 1, { x: 1 }), 0)).toBe('stored');
    expect(t.ownerEntries(d1.owner)).toBe(2);
    // Rebuilding from the journal gives the same counts.
    const copy = new IndexTable(lifetimes, quotas);
    for (const c of t.drainChanges()) copy.apply(c);
    expect(copy.ownerEntries(d1.owner)).toBe(2);
    // A tombstone drops one; expiry drops the other.
    const tomb = (await signed(o.key, {
      kind: 'tombstone',
      id: o.id,
      nonce: o.nonce,
      version: 2,
    })) as TombstoneRecord;
    t.putTombstone(tomb, 10);
    expect(t.ownerEntries(d1.owner)).toBe(1);
    t.expire(lifetimes.recordTtlMs + 1);
    expect(t.ownerEntries(d1.owner)).toBe(0);
    expect(t.putDescriptor(K, await descriptor(await community(o.key), 1, { x: 1 }), 2000)).toBe(
      'stored',
    );
  });
});
