/**
 * A node's state on disk (LevelDB through datastore-level): its identity, both DHTs' and the peer
 * store's records (libp2p writes those itself into the same datastore), the part of the index it
 * holds, the communities it owns and its notification inbox. Every write the node acknowledges
 * is in LevelDB's log before the answer leaves (a killed process loses nothing acknowledged); a
 * change touching several entries is one atomic batch (nothing is ever half-applied).
 */
import { mkdir } from 'node:fs/promises';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { decode, encode } from 'cborg';
import { LevelDatastore } from 'datastore-level';
import { Key } from 'interface-datastore';
import type { Inbox, Notification } from '../index/inbox.ts';
import type { Change, IndexTable } from '../index/index-table.ts';
import type { DescriptorRecord, SignedBlob } from '../index/records.ts';
import { openRecord, STRICT_CBOR } from '../net/records.ts';
import { profileFromWire, profileToWire, type WireProfile } from '../net/wire-profile.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { OwnedCommunity, OwnedStore } from './ownership.ts';

const IDENTITY = new Key('/cidx/identity');
const ENTRY = '/cidx/e';
const CONTACTS = '/cidx/c';
const TOMBSTONE = '/cidx/t';
const OWNED = '/cidx/o';
const NOTE = '/cidx/n';

type Blob = { p: Uint8Array; o: Uint8Array; s: Uint8Array };
const toBlob = (b: SignedBlob): Blob => ({ p: b.payload, o: b.owner, s: b.sig });
const fromBlob = (b: Blob): SignedBlob => ({ payload: b.p, owner: b.o, sig: b.s });

export class NodeStorage {
  readonly datastore: LevelDatastore;
  readonly #limits: ParseOptions;

  private constructor(datastore: LevelDatastore, limits: ParseOptions) {
    this.datastore = datastore;
    this.#limits = limits;
  }

  /** Opens (creating if needed, owner-only permissions) the store in `dir`. */
  static async open(dir: string, limits: ParseOptions = {}): Promise<NodeStorage> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const ds = new LevelDatastore(`${dir}/store`);
    await ds.open();
    return new NodeStorage(ds, limits);
  }

  async close(): Promise<void> {
    await this.datastore.close();
  }

  /** The node's key: read from the store, or made and saved on first start. */
  async identity(): Promise<PrivateKey> {
    if (await this.datastore.has(IDENTITY))
      return privateKeyFromProtobuf(await this.datastore.get(IDENTITY));
    const key = await generateKeyPair('Ed25519');
    await this.datastore.put(IDENTITY, privateKeyToProtobuf(key));
    return key;
  }

  /** Writes journaled table changes as one batch. */
  async writeChanges(changes: Change[]): Promise<void> {
    if (changes.length === 0) return;
    const batch = this.datastore.batch();
    for (const c of changes) {
      switch (c.op) {
        case 'put-descriptor':
          batch.put(
            entryKey(c.key, c.record.id),
            encode({ b: toBlob(c.record.blob), x: c.expiresAt }),
          );
          break;
        case 'put-removed':
          batch.put(entryKey(c.key, c.id), encode({ v: c.version, x: c.expiresAt }));
          break;
        case 'delete-entry':
          batch.delete(entryKey(c.key, c.id));
          break;
        case 'put-contacts': {
          const body: Record<string, unknown> = { b: toBlob(c.record.blob), x: c.expiresAt };
          if (c.descriptor) body.d = toBlob(c.descriptor.blob);
          batch.put(new Key(`${CONTACTS}/${c.record.id}`), encode(body));
          break;
        }
        case 'delete-contacts':
          batch.delete(new Key(`${CONTACTS}/${c.id}`));
          break;
        case 'put-tombstone':
          batch.put(
            new Key(`${TOMBSTONE}/${c.record.id}`),
            encode({ b: toBlob(c.record.blob), x: c.expiresAt }),
          );
          break;
        case 'delete-tombstone':
          batch.delete(new Key(`${TOMBSTONE}/${c.id}`));
          break;
      }
    }
    await batch.commit();
  }

  /** Rebuilds the index table from the store (records were verified when first stored). */
  async loadTable(table: IndexTable): Promise<number> {
    let n = 0;
    for await (const { key, value } of this.datastore.query({ prefix: ENTRY })) {
      const [, , , dhtKey, id] = key.toString().split('/') as string[];
      const v = decode(value, STRICT_CBOR) as { b?: Blob; v?: number; x: number };
      if (v.b !== undefined) {
        const record = (await this.#open(v.b)) as DescriptorRecord;
        table.apply({ op: 'put-descriptor', key: dhtKey as string, record, expiresAt: v.x });
      } else {
        table.apply({
          op: 'put-removed',
          key: dhtKey as string,
          id: id as string,
          version: v.v as number,
          expiresAt: v.x,
        });
      }
      n++;
    }
    for await (const { value } of this.datastore.query({ prefix: CONTACTS })) {
      const v = decode(value, STRICT_CBOR) as { b: Blob; d?: Blob; x: number };
      const record = await this.#open(v.b);
      const descriptor = v.d === undefined ? undefined : await this.#open(v.d);
      if (record.kind !== 'contacts') continue;
      table.apply({
        op: 'put-contacts',
        record,
        ...(descriptor?.kind === 'descriptor' ? { descriptor } : {}),
        expiresAt: v.x,
      });
      n++;
    }
    for await (const { value } of this.datastore.query({ prefix: TOMBSTONE })) {
      const v = decode(value, STRICT_CBOR) as { b: Blob; x: number };
      const record = await this.#open(v.b);
      if (record.kind === 'tombstone') table.apply({ op: 'put-tombstone', record, expiresAt: v.x });
      n++;
    }
    return n;
  }

  /** The owned communities, loaded into memory; every change is written before it returns. */
  async ownedStore(): Promise<OwnedStore> {
    const items = new Map<string, OwnedCommunity>();
    for await (const { value } of this.datastore.query({ prefix: OWNED })) {
      const c = decodeOwned(value, this.#limits);
      items.set(c.id, c);
    }
    const ds = this.datastore;
    return {
      get: (id) => items.get(id),
      all: () => [...items.values()],
      async put(c) {
        await ds.put(new Key(`${OWNED}/${c.id}`), encodeOwned(c));
        items.set(c.id, c);
      },
      async delete(id) {
        await ds.delete(new Key(`${OWNED}/${id}`));
        items.delete(id);
      },
    };
  }

  /** Saves a notification and forgets the one the inbox's capacity pushed out. */
  async saveNotification(n: Notification, capacity: number): Promise<void> {
    const batch = this.datastore.batch();
    batch.put(
      noteKey(n.seq),
      encode({
        q: n.seq,
        k: n.kind,
        b: toBlob(n.record.blob),
        s: n.similarity,
        f: n.for,
        t: n.receivedAt,
      }),
    );
    if (n.seq > capacity) batch.delete(noteKey(n.seq - capacity));
    await batch.commit();
  }

  async loadInbox(inbox: Inbox): Promise<void> {
    const items: Notification[] = [];
    for await (const { value } of this.datastore.query({ prefix: NOTE })) {
      const v = decode(value, STRICT_CBOR) as {
        q: number;
        k: 'created' | 'updated';
        b: Blob;
        s: number;
        f: string;
        t: number;
      };
      const record = await this.#open(v.b);
      if (record.kind !== 'descriptor') continue;
      items.push({ seq: v.q, kind: v.k, record, similarity: v.s, for: v.f, receivedAt: v.t });
    }
    inbox.restore(items.sort((a, b) => a.seq - b.seq));
  }

  #open(b: Blob) {
    return openRecord(fromBlob(b), this.#limits, { verified: true });
  }
}

function entryKey(dhtKey: string, id: string): Key {
  return new Key(`${ENTRY}/${dhtKey}/${id}`);
}

/** Zero-padded so that keys sort by sequence number. */
function noteKey(seq: number): Key {
  return new Key(`${NOTE}/${String(seq).padStart(16, '0')}`);
}

function encodeOwned(c: OwnedCommunity): Uint8Array {
  const body: Record<string, unknown> = {
    id: c.id,
    n: c.nonce,
    v: c.version,
    p: profileToWire(c.profile),
    a: c.contacts,
    k: c.keys,
    d: toBlob(c.descriptor),
    c: toBlob(c.contactsRecord),
    h: c.holders ?? {},
  };
  if (c.dissolved) body.x = { t: toBlob(c.dissolved.tombstone), u: c.dissolved.until };
  if (c.defaultContacts) body.dc = true;
  return encode(body);
}

function decodeOwned(bytes: Uint8Array, limits: ParseOptions): OwnedCommunity {
  const v = decode(bytes, STRICT_CBOR) as {
    id: string;
    n: Uint8Array;
    v: number;
    p: WireProfile;
    a: string[];
    k: string[];
    d: Blob;
    c: Blob;
    x?: { t: Blob; u: number };
    h?: Record<string, string[]>;
    dc?: boolean;
  };
  const c: OwnedCommunity = {
    id: v.id,
    nonce: v.n,
    version: v.v,
    profile: profileFromWire(v.p, limits),
    contacts: v.a,
    keys: v.k,
    descriptor: fromBlob(v.d),
    contactsRecord: fromBlob(v.c),
  };
  if (v.x) c.dissolved = { tombstone: fromBlob(v.x.t), until: v.x.u };
  if (v.h) c.holders = v.h;
  if (v.dc === true) c.defaultContacts = true;
  return c;
}
