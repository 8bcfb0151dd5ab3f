/**
 * A node's state on disk (LevelDB through datastore-level): its identity, both DHTs' and the peer
 * store's records (libp2p writes those itself into the same datastore), the part of the index it
 * holds, the communities it owns and its notification inbox. Every write the node acknowledges
 * is in LevelDB's log before the answer leaves (a killed process loses nothing acknowledged); a
 * change touching several entries is one atomic batch (nothing is ever half-applied). The store
 * carries its format version (storage-format.ts); every record read back is decoded through its
 * schema (storage-records.ts), and one that does not decode is reported by its key.
 */
import { mkdir } from 'node:fs/promises';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { encode } from 'cborg';
import { LevelDatastore } from 'datastore-level';
import { Key } from 'interface-datastore';
import type { Inbox, Notification } from '../index/inbox.ts';
import type { Change, IndexTable } from '../index/index-table.ts';
import { blobToWire } from '../net/codec.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { OwnedCommunity, OwnedStore } from './ownership.ts';
import { prepareFormat } from './storage-format.ts';
import {
  CONTACTS,
  CorruptRecordError,
  contactsSchema,
  decodeEntry,
  decodeNote,
  decodeOwned,
  decodeValue,
  ENTRY,
  encodeNote,
  encodeOwned,
  entryKey,
  IDENTITY,
  idOfKey,
  NOTE,
  noteKey,
  OWNED,
  openStored,
  parseEntryKey,
  TOMBSTONE,
  tombstoneSchema,
} from './storage-records.ts';

export { StorageFormatError } from './storage-format.ts';
export { CorruptRecordError, StorageError } from './storage-records.ts';

export class NodeStorage {
  readonly datastore: LevelDatastore;
  readonly #limits: ParseOptions;

  private constructor(datastore: LevelDatastore, limits: ParseOptions) {
    this.datastore = datastore;
    this.#limits = limits;
  }

  /**
   * Opens (creating if needed, owner-only permissions) the store in `dir`: refuses one written
   * by a newer cidx (StorageFormatError) and migrates an older one, before anything else reads
   * or writes it.
   */
  static async open(dir: string, limits: ParseOptions = {}): Promise<NodeStorage> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const ds = new LevelDatastore(`${dir}/store`);
    await ds.open();
    try {
      await prepareFormat(ds, dir);
    } catch (err) {
      await ds.close();
      throw err;
    }
    return new NodeStorage(ds, limits);
  }

  async close(): Promise<void> {
    await this.datastore.close();
  }

  /** The node's key: read from the store, or made and saved on first start. */
  async identity(): Promise<PrivateKey> {
    const at = new Key(IDENTITY);
    if (await this.datastore.has(at)) {
      try {
        return privateKeyFromProtobuf(await this.datastore.get(at));
      } catch (err) {
        throw new CorruptRecordError(IDENTITY, `not a private key (${(err as Error).message})`);
      }
    }
    const key = await generateKeyPair('Ed25519');
    await this.datastore.put(at, privateKeyToProtobuf(key));
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
            new Key(entryKey(c.key, c.record.id)),
            encode({ b: blobToWire(c.record.blob), x: c.expiresAt }),
          );
          break;
        case 'put-removed':
          batch.put(new Key(entryKey(c.key, c.id)), encode({ v: c.version, x: c.expiresAt }));
          break;
        case 'delete-entry':
          batch.delete(new Key(entryKey(c.key, c.id)));
          break;
        case 'put-contacts': {
          const body: Record<string, unknown> = { b: blobToWire(c.record.blob), x: c.expiresAt };
          if (c.descriptor) body.d = blobToWire(c.descriptor.blob);
          batch.put(new Key(`${CONTACTS}/${c.record.id}`), encode(body));
          break;
        }
        case 'delete-contacts':
          batch.delete(new Key(`${CONTACTS}/${c.id}`));
          break;
        case 'put-tombstone':
          batch.put(
            new Key(`${TOMBSTONE}/${c.record.id}`),
            encode({ b: blobToWire(c.record.blob), x: c.expiresAt }),
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
    for await (const { key, value } of this.datastore.query({ prefix: `${ENTRY}/` })) {
      const k = key.toString();
      const { dhtKey, id } = parseEntryKey(k);
      const v = decodeEntry(k, value);
      if ('b' in v) {
        const record = await openStored(k, v.b, 'descriptor', id, this.#limits);
        table.apply({ op: 'put-descriptor', key: dhtKey, record, expiresAt: v.x });
      } else {
        table.apply({ op: 'put-removed', key: dhtKey, id, version: v.v, expiresAt: v.x });
      }
      n++;
    }
    for await (const { key, value } of this.datastore.query({ prefix: `${CONTACTS}/` })) {
      const k = key.toString();
      const id = idOfKey(CONTACTS, k);
      const v = decodeValue(contactsSchema, k, value);
      const record = await openStored(k, v.b, 'contacts', id, this.#limits);
      const descriptor =
        v.d === undefined ? undefined : await openStored(k, v.d, 'descriptor', id, this.#limits);
      table.apply({
        op: 'put-contacts',
        record,
        descriptor,
        expiresAt: v.x,
      });
      n++;
    }
    for await (const { key, value } of this.datastore.query({ prefix: `${TOMBSTONE}/` })) {
      const k = key.toString();
      const v = decodeValue(tombstoneSchema, k, value);
      const record = await openStored(k, v.b, 'tombstone', idOfKey(TOMBSTONE, k), this.#limits);
      table.apply({ op: 'put-tombstone', record, expiresAt: v.x });
      n++;
    }
    return n;
  }

  /** The owned communities, loaded into memory; every change is written before it returns. */
  async ownedStore(): Promise<OwnedStore> {
    const items = new Map<string, OwnedCommunity>();
    for await (const { key, value } of this.datastore.query({ prefix: `${OWNED}/` })) {
      const c = decodeOwned(key.toString(), value, this.#limits);
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
    batch.put(new Key(noteKey(n.seq)), encodeNote(n));
    if (n.seq > capacity) batch.delete(new Key(noteKey(n.seq - capacity)));
    await batch.commit();
  }

  async loadInbox(inbox: Inbox): Promise<void> {
    const items: Notification[] = [];
    for await (const { key, value } of this.datastore.query({ prefix: `${NOTE}/` }))
      items.push(await decodeNote(key.toString(), value, this.#limits));
    inbox.restore(items.sort((a, b) => a.seq - b.seq));
  }
}
