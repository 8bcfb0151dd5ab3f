import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyToProtobuf, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { encode } from 'cborg';
import { LevelDatastore } from 'datastore-level';
import { Key } from 'interface-datastore';
import type { SignedBlob } from '../../src/index/records.ts';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { communityId, NONCE_BYTES, signRecord } from '../../src/net/records.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { hex } from '../../src/util/bytes.ts';
import { owner } from './records.ts';

/** What a format-0 store written by `writeFormat0Store` holds. */
export interface Format0Store {
  /** The node's own key. */
  key: PrivateKey;
  /** Owned by the node: a community written before holders were kept, and a dissolved one. */
  own: { id: string; keys: string[]; contacts: string[]; weights: Record<string, number> };
  dissolved: { id: string; until: number };
  /** Another owner's community the node holds: a descriptor, a removal marker, its contacts. */
  held: { id: string; key: string; removedKey: string; contacts: string[] };
  /** Another owner's dissolved community: its tombstone. */
  tombstone: { id: string };
  /** Two notifications about `held`, for `own`. */
  notes: { seq: number; kind: 'created' | 'updated'; id: string; for: string }[];
}

const blob = (b: SignedBlob) => ({ p: b.payload, o: b.owner, s: b.sig });
const contactOf = (key: PrivateKey) =>
  `/ip4/127.0.0.1/tcp/4001/p2p/${peerIdFromPrivateKey(key).toString()}`;

/**
 * Writes, into `<dir>/store`, the layout of format 0 (before the store had a format key), value
 * by value as that code wrote it — a fixture of the old format, independent of today's encoders.
 */
export async function writeFormat0Store(dir: string): Promise<Format0Store> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ds = new LevelDatastore(join(dir, 'store'));
  await ds.open();
  const put = (k: string, v: unknown) =>
    ds.put(new Key(k), v instanceof Uint8Array ? v : encode(v));
  const index = resolveSwarm().params.index;
  const later = Date.now() + 3_600_000;
  try {
    const key = await generateKeyPair('Ed25519');
    await put('/cidx/identity', privateKeyToProtobuf(key));

    const own = await ownedOf(key, { format: 1, zero: 1.5, layout: 0.5 });
    await put(`/cidx/o/${own.id}`, own.value);
    const gone = await ownedOf(key, { dissolved: 1, old: 1 });
    const tomb = await signRecord(key, {
      kind: 'tombstone',
      id: gone.id,
      nonce: gone.nonce,
      version: 2,
    });
    await put(`/cidx/o/${gone.id}`, {
      ...gone.value,
      h: { [gone.keys[0] as string]: [peerIdFromPrivateKey(key).toString()] },
      x: { t: blob(tomb), u: later },
    });

    const other = await owner();
    const profile = parseProfile({ weights: { held: 1.2, record: 0.8 } });
    const [k1, k2] = indexKeys(profile, index).map(hex) as [string, string];
    const desc = await signRecord(other.key, {
      kind: 'descriptor',
      id: other.id,
      nonce: other.nonce,
      version: 1,
      profile,
    });
    const contacts = [contactOf(other.key)];
    const contactsRec = await signRecord(other.key, {
      kind: 'contacts',
      id: other.id,
      nonce: other.nonce,
      version: 1,
      addrs: contacts,
    });
    await put(`/cidx/e/${k1}/${other.id}`, { b: blob(desc), x: later });
    await put(`/cidx/e/${k2}/${other.id}`, { v: 1, x: later });
    await put(`/cidx/c/${other.id}`, { b: blob(contactsRec), d: blob(desc), x: later });

    const third = await owner();
    const dead = await signRecord(third.key, {
      kind: 'tombstone',
      id: third.id,
      nonce: third.nonce,
      version: 3,
    });
    await put(`/cidx/t/${third.id}`, { b: blob(dead), x: later });

    const notes: Format0Store['notes'] = [
      { seq: 1, kind: 'created', id: other.id, for: own.id },
      { seq: 2, kind: 'updated', id: other.id, for: own.id },
    ];
    for (const n of notes) {
      await put(`/cidx/n/${String(n.seq).padStart(16, '0')}`, {
        q: n.seq,
        k: n.kind,
        b: blob(desc),
        s: 0.25,
        f: n.for,
        t: later - 1000,
      });
    }
    return {
      key,
      own: { id: own.id, keys: own.keys, contacts: [contactOf(key)], weights: own.weights },
      dissolved: { id: gone.id, until: later },
      held: { id: other.id, key: k1, removedKey: k2, contacts },
      tombstone: { id: third.id },
      notes,
    };
  } finally {
    await ds.close();
  }

  /** An owned community as format 0 wrote it (no holders: written before they were kept). */
  async function ownedOf(key: PrivateKey, weights: Record<string, number>) {
    const nonce = new Uint8Array(randomBytes(NONCE_BYTES));
    const c = { id: communityId(publicKeyToProtobuf(key.publicKey), nonce), nonce };
    const profile = parseProfile({ weights });
    const keys = indexKeys(profile, index).map(hex);
    const d = await signRecord(key, { kind: 'descriptor', ...c, version: 1, profile });
    const addrs = [contactOf(key)];
    const cr = await signRecord(key, { kind: 'contacts', ...c, version: 1, addrs });
    const value = {
      id: c.id,
      n: c.nonce,
      v: 1,
      p: profileToWire(profile),
      a: addrs,
      k: keys,
      d: blob(d),
      c: blob(cr),
    };
    return { id: c.id, nonce: c.nonce, keys, weights, value };
  }
}
