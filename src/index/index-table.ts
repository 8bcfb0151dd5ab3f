import { hex, sameBytes } from '../util/bytes.ts';
import type {
  ContactsRecord,
  DescriptorRecord,
  RemovalRecord,
  TombstoneRecord,
} from './records.ts';

/**
 * What one owner key may hold on this node: a peer can mint keys freely, but each key's share
 * is bounded, so a single identity cannot fill a node's table or crowd out one key's entries.
 */
export interface Quotas {
  /** Descriptors of one owner under one DHT key. */
  perOwnerPerKey: number;
  /** Descriptors of one owner over all keys. */
  perOwner: number;
}

const DEFAULT_QUOTAS: Quotas = { perOwnerPerKey: 64, perOwner: 20_000 };

/** How long records live without being republished. */
export interface Lifetimes {
  /** Descriptors, contact lists and removal markers (ms). */
  recordTtlMs: number;
  /** Tombstones: longer than records, so they outlive every stale copy (ms). */
  tombstoneTtlMs: number;
}

/** What a write did: stored or refreshed it, or why it was refused. */
export type Outcome =
  | 'stored'
  | 'refreshed'
  | 'removed'
  /** An equal or newer version is already here. */
  | 'stale'
  /** The same version with a different payload: the owner signed two contents. */
  | 'conflict'
  /** A tombstone says the community was dissolved. */
  | 'dissolved'
  /** The owner already holds as many descriptors here as the quota allows. */
  | 'quota';

type KeyEntry =
  | { kind: 'descriptor'; record: DescriptorRecord; expiresAt: number }
  | { kind: 'removed'; version: number; expiresAt: number };

/** A mutation of the table, for a persistence layer to write before acknowledging it. */
export type Change =
  | { op: 'put-descriptor'; key: string; record: DescriptorRecord; expiresAt: number }
  | { op: 'put-removed'; key: string; id: string; version: number; expiresAt: number }
  | { op: 'delete-entry'; key: string; id: string }
  | { op: 'put-contacts'; record: ContactsRecord; descriptor?: DescriptorRecord; expiresAt: number }
  | { op: 'delete-contacts'; id: string }
  | { op: 'put-tombstone'; record: TombstoneRecord; expiresAt: number }
  | { op: 'delete-tombstone'; id: string };

/**
 * The part of the index a node holds: per DHT key (hex), the descriptors stored under it and
 * removal markers; per community id, its contact list and its tombstone. Pure and in memory:
 * every mutation is also appended to a change journal that a persistence layer drains and
 * writes before the node answers (so an acknowledged write survives a crash).
 *
 * Version rules, the same for every kind of record: a write never replaces a newer version;
 * the same version refreshes the expiry only if its payload is byte-identical; nothing is
 * stored for a community with a tombstone.
 */
export class IndexTable {
  readonly lifetimes: Lifetimes;
  readonly #keys = new Map<string, Map<string, KeyEntry>>();
  readonly #keysOfId = new Map<string, Set<string>>();
  readonly #contacts = new Map<
    string,
    { record: ContactsRecord; descriptor?: DescriptorRecord; expiresAt: number }
  >();
  readonly #tombstones = new Map<string, { record: TombstoneRecord; expiresAt: number }>();
  readonly quotas: Quotas;
  /** Descriptor entries per owner (hex key), and per owner and DHT key ("owner/key"). */
  readonly #perOwner = new Map<string, number>();
  readonly #perOwnerKey = new Map<string, number>();
  #changes: Change[] = [];

  constructor(lifetimes: Lifetimes, quotas: Quotas = DEFAULT_QUOTAS) {
    this.lifetimes = lifetimes;
    this.quotas = quotas;
  }

  /** Descriptors this node holds for an owner (its public key bytes). */
  ownerEntries(owner: Uint8Array): number {
    return this.#perOwner.get(hex(owner)) ?? 0;
  }

  /** Live descriptors stored under a key. */
  *descriptors(key: string, now: number): Generator<DescriptorRecord> {
    const entries = this.#keys.get(key);
    if (entries === undefined) return;
    for (const e of entries.values()) {
      if (e.kind === 'descriptor' && e.expiresAt > now) yield e.record;
    }
  }

  /** Stores or refreshes a descriptor under a key (algorithms 4.13 and 4.14, storing step). */
  putDescriptor(key: string, record: DescriptorRecord, now: number): Outcome {
    if (this.#liveTombstone(record.id, now)) return 'dissolved';
    const entries = this.#entriesOf(key);
    const cur = entries.get(record.id);
    const expiresAt = now + this.lifetimes.recordTtlMs;
    if (cur !== undefined && cur.expiresAt > now) {
      if (cur.kind === 'removed') {
        if (cur.version >= record.version) return 'stale';
      } else if (cur.record.version > record.version) {
        return 'stale';
      } else if (cur.record.version === record.version) {
        if (!sameBytes(cur.record.blob.payload, record.blob.payload)) return 'conflict';
        cur.expiresAt = expiresAt;
        this.#changes.push({ op: 'put-descriptor', key, record: cur.record, expiresAt });
        return 'refreshed';
      }
    }
    // A newer version replacing the owner's own live descriptor does not grow its share.
    const replaces = cur !== undefined && cur.kind === 'descriptor';
    if (!replaces) {
      const owner = hex(record.owner);
      if (
        (this.#perOwner.get(owner) ?? 0) >= this.quotas.perOwner ||
        (this.#perOwnerKey.get(`${owner}/${key}`) ?? 0) >= this.quotas.perOwnerPerKey
      ) {
        return 'quota';
      }
    }
    this.#setEntry(key, record.id, { kind: 'descriptor', record, expiresAt });
    this.#changes.push({ op: 'put-descriptor', key, record, expiresAt });
    return 'stored';
  }

  /** Removes a descriptor from the key its removal names (RemoveDescriptor). */
  removeDescriptor(removal: RemovalRecord, now: number): Outcome {
    if (this.#liveTombstone(removal.id, now)) return 'dissolved';
    const key = hex(removal.key);
    const entries = this.#entriesOf(key);
    const cur = entries.get(removal.id);
    if (cur !== undefined && cur.expiresAt > now) {
      const version = cur.kind === 'removed' ? cur.version : cur.record.version;
      if (version > removal.version) return 'stale';
      if (cur.kind === 'removed' && version === removal.version) return 'refreshed';
    }
    // The marker refuses a late copy of an older version for as long as such copies can live.
    const expiresAt = now + this.lifetimes.recordTtlMs;
    this.#setEntry(key, removal.id, { kind: 'removed', version: removal.version, expiresAt });
    this.#changes.push({
      op: 'put-removed',
      key,
      id: removal.id,
      version: removal.version,
      expiresAt,
    });
    return 'removed';
  }

  /** Records a dissolution: drops every descriptor and the contacts of the community. */
  putTombstone(record: TombstoneRecord, now: number): Outcome {
    const cur = this.#tombstones.get(record.id);
    const expiresAt = now + this.lifetimes.tombstoneTtlMs;
    if (cur !== undefined && cur.expiresAt > now && cur.record.version >= record.version) {
      if (cur.record.version > record.version) return 'stale';
      cur.expiresAt = expiresAt;
      this.#changes.push({ op: 'put-tombstone', record: cur.record, expiresAt });
      return 'refreshed';
    }
    this.#tombstones.set(record.id, { record, expiresAt });
    this.#changes.push({ op: 'put-tombstone', record, expiresAt });
    for (const key of [...(this.#keysOfId.get(record.id) ?? [])]) {
      this.#deleteEntry(key, record.id);
      this.#changes.push({ op: 'delete-entry', key, id: record.id });
    }
    this.#keysOfId.delete(record.id);
    if (this.#contacts.delete(record.id))
      this.#changes.push({ op: 'delete-contacts', id: record.id });
    return 'stored';
  }

  /**
   * Stores or refreshes a community's entry in AddressesDHT: its contact list and, so that any
   * node can read a community by id, its current descriptor (same version as the contacts).
   */
  putContacts(
    record: ContactsRecord,
    descriptor: DescriptorRecord | undefined,
    now: number,
  ): Outcome {
    if (this.#liveTombstone(record.id, now)) return 'dissolved';
    const cur = this.#contacts.get(record.id);
    const expiresAt = now + this.lifetimes.recordTtlMs;
    if (cur !== undefined && cur.expiresAt > now) {
      if (cur.record.version > record.version) return 'stale';
      if (cur.record.version === record.version) {
        if (!sameBytes(cur.record.blob.payload, record.blob.payload)) return 'conflict';
        cur.expiresAt = expiresAt;
        cur.descriptor ??= descriptor;
        this.#changes.push({
          op: 'put-contacts',
          record: cur.record,
          descriptor: cur.descriptor,
          expiresAt,
        });
        return 'refreshed';
      }
    }
    this.#contacts.set(record.id, { record, descriptor, expiresAt });
    this.#changes.push({ op: 'put-contacts', record, descriptor, expiresAt });
    return 'stored';
  }

  /** A community's contact list, or its tombstone when it was dissolved. */
  contacts(
    id: string,
    now: number,
  ): { contacts?: ContactsRecord; descriptor?: DescriptorRecord; tombstone?: TombstoneRecord } {
    const t = this.#liveTombstone(id, now);
    if (t !== undefined) return { tombstone: t };
    const c = this.#contacts.get(id);
    if (c === undefined || c.expiresAt <= now) return {};
    return c.descriptor === undefined
      ? { contacts: c.record }
      : { contacts: c.record, descriptor: c.descriptor };
  }

  tombstone(id: string, now: number): TombstoneRecord | undefined {
    return this.#liveTombstone(id, now);
  }

  /** Drops everything whose lifetime is over; returns how many entries went. */
  expire(now: number): number {
    let dropped = 0;
    for (const [key, entries] of this.#keys) {
      for (const [id, e] of entries) {
        if (e.expiresAt <= now) {
          this.#deleteEntry(key, id);
          this.#changes.push({ op: 'delete-entry', key, id });
          dropped++;
        }
      }
      if (entries.size === 0) this.#keys.delete(key);
    }
    for (const [id, set] of this.#keysOfId) if (set.size === 0) this.#keysOfId.delete(id);
    for (const [id, c] of this.#contacts) {
      if (c.expiresAt <= now) {
        this.#contacts.delete(id);
        this.#changes.push({ op: 'delete-contacts', id });
        dropped++;
      }
    }
    for (const [id, t] of this.#tombstones) {
      if (t.expiresAt <= now) {
        this.#tombstones.delete(id);
        this.#changes.push({ op: 'delete-tombstone', id });
        dropped++;
      }
    }
    return dropped;
  }

  /** Counts of what is held (live or not yet swept), and the bytes of the signed records. */
  stats(): {
    descriptors: number;
    keys: number;
    contacts: number;
    tombstones: number;
    bytes: number;
  } {
    let descriptors = 0;
    let keys = 0;
    let bytes = 0;
    for (const entries of this.#keys.values()) {
      let any = false;
      for (const e of entries.values()) {
        if (e.kind === 'descriptor') {
          descriptors++;
          bytes += blobBytes(e.record.blob);
          any = true;
        }
      }
      if (any) keys++;
    }
    for (const c of this.#contacts.values())
      bytes += blobBytes(c.record.blob) + (c.descriptor ? blobBytes(c.descriptor.blob) : 0);
    for (const t of this.#tombstones.values()) bytes += blobBytes(t.record.blob);
    return {
      descriptors,
      keys,
      contacts: this.#contacts.size,
      tombstones: this.#tombstones.size,
      bytes,
    };
  }

  /**
   * Applies a change as it was journaled, without journaling it again: how a node rebuilds its
   * table from its store after a restart.
   */
  apply(c: Change): void {
    switch (c.op) {
      case 'put-descriptor':
        this.#setEntry(c.key, c.record.id, {
          kind: 'descriptor',
          record: c.record,
          expiresAt: c.expiresAt,
        });
        return;
      case 'put-removed':
        this.#setEntry(c.key, c.id, {
          kind: 'removed',
          version: c.version,
          expiresAt: c.expiresAt,
        });
        return;
      case 'delete-entry':
        this.#deleteEntry(c.key, c.id);
        return;
      case 'put-contacts':
        this.#contacts.set(c.record.id, {
          record: c.record,
          descriptor: c.descriptor,
          expiresAt: c.expiresAt,
        });
        return;
      case 'delete-contacts':
        this.#contacts.delete(c.id);
        return;
      case 'put-tombstone':
        this.#tombstones.set(c.record.id, { record: c.record, expiresAt: c.expiresAt });
        return;
      case 'delete-tombstone':
        this.#tombstones.delete(c.id);
        return;
    }
  }

  /** Returns and forgets the mutations since the last call. */
  drainChanges(): Change[] {
    const out = this.#changes;
    this.#changes = [];
    return out;
  }

  /** Every entry is set and deleted here, so the owners' counts stay exact. */
  #setEntry(key: string, id: string, entry: KeyEntry): void {
    const entries = this.#entriesOf(key);
    this.#count(key, entries.get(id), -1);
    entries.set(id, entry);
    this.#count(key, entry, 1);
    this.#indexId(id, key);
  }

  #deleteEntry(key: string, id: string): void {
    const entries = this.#keys.get(key);
    this.#count(key, entries?.get(id), -1);
    entries?.delete(id);
    this.#keysOfId.get(id)?.delete(key);
  }

  #count(key: string, entry: KeyEntry | undefined, delta: number): void {
    if (entry?.kind !== 'descriptor') return;
    const owner = hex(entry.record.owner);
    bump(this.#perOwner, owner, delta);
    bump(this.#perOwnerKey, `${owner}/${key}`, delta);
  }

  #entriesOf(key: string): Map<string, KeyEntry> {
    let entries = this.#keys.get(key);
    if (entries === undefined) {
      entries = new Map();
      this.#keys.set(key, entries);
    }
    return entries;
  }

  #indexId(id: string, key: string): void {
    let set = this.#keysOfId.get(id);
    if (set === undefined) {
      set = new Set();
      this.#keysOfId.set(id, set);
    }
    set.add(key);
  }

  #liveTombstone(id: string, now: number): TombstoneRecord | undefined {
    const t = this.#tombstones.get(id);
    return t !== undefined && t.expiresAt > now ? t.record : undefined;
  }
}

function bump(map: Map<string, number>, k: string, delta: number): void {
  const v = (map.get(k) ?? 0) + delta;
  if (v <= 0) map.delete(k);
  else map.set(k, v);
}

function blobBytes(b: { payload: Uint8Array; owner: Uint8Array; sig: Uint8Array }): number {
  return b.payload.length + b.owner.length + b.sig.length;
}
