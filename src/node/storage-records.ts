/**
 * The cidx records of a node's store, as they are encoded on disk: CBOR values, each decoded
 * through a zod schema as the wire codec decodes messages. A value that does not decode is
 * reported with its key (CorruptRecordError), never passed on half-checked.
 */
import { decode, encode } from 'cborg';
import { z } from 'zod';
import type { Notification } from '../index/inbox.ts';
import type { SignedRecord } from '../index/records.ts';
import { blobFromWire, blobToWire, bytes, signedFields, type WireSigned } from '../net/codec.ts';
import { NONCE_BYTES, openRecord, RecordError, STRICT_CBOR } from '../net/records.ts';
import { profileFromWire, profileToWire, wireProfileSchema } from '../net/wire-profile.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { OwnedCommunity } from './ownership.ts';

/** The data directory cannot be used as it is. */
export class StorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageError';
  }
}

/** A record on disk that does not decode; `key` names it. */
export class CorruptRecordError extends StorageError {
  readonly key: string;
  constructor(key: string, why: string) {
    super(`corrupt record at ${key}: ${why.replaceAll('\n', '; ')}`);
    this.name = 'CorruptRecordError';
    this.key = key;
  }
}

export const IDENTITY = '/cidx/identity';
export const ENTRY = '/cidx/e';
export const CONTACTS = '/cidx/c';
export const TOMBSTONE = '/cidx/t';
export const OWNED = '/cidx/o';
export const NOTE = '/cidx/n';

/** Larger values are not records this code wrote (a frame is at most a few MiB). */
const MAX_VALUE_BYTES = 64 * 1024 * 1024;

const blob = z.strictObject(signedFields);
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits');
/** A DHT key in hex (1 to 64 bytes, as the wire allows). */
const dhtKeyHex = z.string().regex(/^([0-9a-f]{2}){1,64}$/, 'must be a hex DHT key');
const version = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** A time on the node's clock (ms). */
const time = z.number();

const descriptorEntry = z.strictObject({ b: blob, x: time });
/** A removal marker: refuses older copies of the descriptor under this key. */
const removedEntry = z.strictObject({ v: version, x: time });
export const contactsSchema = z.strictObject({ b: blob, d: blob.optional(), x: time });
export const tombstoneSchema = z.strictObject({ b: blob, x: time });
const noteSchema = z.strictObject({
  q: version,
  k: z.enum(['created', 'updated']),
  b: blob,
  s: z.number().min(0),
  f: hex64,
  t: time,
});
const ownedFields = {
  id: hex64,
  n: bytes.refine((b) => b.length === NONCE_BYTES, `must be ${NONCE_BYTES} bytes`),
  v: version,
  p: wireProfileSchema,
  a: z.array(z.string()),
  k: z.array(dhtKeyHex),
  d: blob,
  c: blob,
  /** Per key, the peers known to hold a copy. */
  h: z.record(dhtKeyHex, z.array(z.string())),
  x: z.strictObject({ t: blob, u: time }).optional(),
  /** The contacts follow the node's dialable addresses (none were given at create). */
  dc: z.literal(true).optional(),
};
const ownedSchema = z.strictObject(ownedFields);
/** Format 0 wrote owned communities without their holders before holders were kept. */
export const ownedSchemaV0 = z.strictObject({ ...ownedFields, h: ownedFields.h.optional() });

function decodeCbor(key: string, value: Uint8Array): unknown {
  if (value.length > MAX_VALUE_BYTES)
    throw new CorruptRecordError(key, `${value.length} bytes, more than ${MAX_VALUE_BYTES}`);
  try {
    return decode(value, STRICT_CBOR);
  } catch (err) {
    throw new CorruptRecordError(key, `not valid CBOR (${(err as Error).message})`);
  }
}

function checkShape<S extends z.ZodType>(schema: S, key: string, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`);
  throw new CorruptRecordError(key, why.join('; '));
}

/** Decodes a value with a schema; CorruptRecordError (naming `key`) when it does not fit. */
export function decodeValue<S extends z.ZodType>(
  schema: S,
  key: string,
  value: Uint8Array,
): z.infer<S> {
  return checkShape(schema, key, decodeCbor(key, value));
}

/** An index entry: a descriptor, or the marker a removal left. */
export function decodeEntry(
  key: string,
  value: Uint8Array,
): z.infer<typeof descriptorEntry> | z.infer<typeof removedEntry> {
  const raw = decodeCbor(key, value);
  const isDescriptor = typeof raw === 'object' && raw !== null && 'b' in raw;
  return isDescriptor ? checkShape(descriptorEntry, key, raw) : checkShape(removedEntry, key, raw);
}

/**
 * Opens a signed record kept on disk (its signature was checked when it first arrived) and
 * checks that it is of the expected kind and community.
 */
export async function openStored<K extends SignedRecord['kind']>(
  key: string,
  b: WireSigned,
  kind: K,
  id: string | undefined,
  limits: ParseOptions,
): Promise<Extract<SignedRecord, { kind: K }>> {
  let record: SignedRecord;
  try {
    record = await openRecord(blobFromWire(b), limits, { verified: true });
  } catch (err) {
    if (err instanceof RecordError) throw new CorruptRecordError(key, err.message);
    throw err;
  }
  if (record.kind !== kind)
    throw new CorruptRecordError(key, `holds a ${record.kind} record, not a ${kind}`);
  if (id !== undefined && record.id !== id)
    throw new CorruptRecordError(key, `holds a record of community ${record.id}`);
  return record as Extract<SignedRecord, { kind: K }>;
}

export function entryKey(dhtKey: string, id: string): string {
  return `${ENTRY}/${dhtKey}/${id}`;
}

/** The DHT key and community id an entry's key names. */
export function parseEntryKey(key: string): { dhtKey: string; id: string } {
  const [root, cidx, e, dhtKey, id, ...rest] = key.split('/');
  if (
    root !== '' ||
    `/${cidx}/${e}` !== ENTRY ||
    rest.length > 0 ||
    !dhtKeyHex.safeParse(dhtKey).success ||
    !hex64.safeParse(id).success
  )
    throw new CorruptRecordError(key, `not a key of the form ${ENTRY}/<DHT key>/<id>`);
  return { dhtKey: dhtKey as string, id: id as string };
}

/** The id a `<prefix>/<id>` key names. */
export function idOfKey(prefix: string, key: string): string {
  const id = key.slice(prefix.length + 1);
  if (!key.startsWith(`${prefix}/`) || !hex64.safeParse(id).success)
    throw new CorruptRecordError(key, `not a key of the form ${prefix}/<id>`);
  return id;
}

/** Zero-padded so that keys sort by sequence number. */
export function noteKey(seq: number): string {
  return `${NOTE}/${String(seq).padStart(16, '0')}`;
}

export function encodeNote(n: Notification): Uint8Array {
  return encode({
    q: n.seq,
    k: n.kind,
    b: blobToWire(n.record.blob),
    s: n.similarity,
    f: n.for,
    t: n.receivedAt,
  });
}

export async function decodeNote(
  key: string,
  value: Uint8Array,
  limits: ParseOptions,
): Promise<Notification> {
  const v = decodeValue(noteSchema, key, value);
  if (noteKey(v.q) !== key) throw new CorruptRecordError(key, `holds notification ${v.q}`);
  const record = await openStored(key, v.b, 'descriptor', undefined, limits);
  return { seq: v.q, kind: v.k, record, similarity: v.s, for: v.f, receivedAt: v.t };
}

export function encodeOwned(c: OwnedCommunity): Uint8Array {
  const body: Record<string, unknown> = {
    id: c.id,
    n: c.nonce,
    v: c.version,
    p: profileToWire(c.profile),
    a: c.contacts,
    k: c.keys,
    d: blobToWire(c.descriptor),
    c: blobToWire(c.contactsRecord),
    h: c.holders ?? {},
  };
  if (c.dissolved) body.x = { t: blobToWire(c.dissolved.tombstone), u: c.dissolved.until };
  if (c.defaultContacts) body.dc = true;
  return encode(body);
}

export function decodeOwned(key: string, value: Uint8Array, limits: ParseOptions): OwnedCommunity {
  const v = decodeValue(ownedSchema, key, value);
  if (idOfKey(OWNED, key) !== v.id) throw new CorruptRecordError(key, `holds community ${v.id}`);
  let profile: OwnedCommunity['profile'];
  try {
    profile = profileFromWire(v.p, limits);
  } catch (err) {
    throw new CorruptRecordError(key, `profile: ${(err as Error).message}`);
  }
  const c: OwnedCommunity = {
    id: v.id,
    nonce: v.n,
    version: v.v,
    profile,
    contacts: v.a,
    keys: v.k,
    holders: v.h,
    descriptor: blobFromWire(v.d),
    contactsRecord: blobFromWire(v.c),
  };
  if (v.x) c.dissolved = { tombstone: blobFromWire(v.x.t), until: v.x.u };
  if (v.dc === true) c.defaultContacts = true;
  return c;
}
