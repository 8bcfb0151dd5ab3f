/**
 * Signed records on the wire: payload encoding, signing with the owner's libp2p key, and
 * opening (verify the signature, decode, validate, check the id derives from owner and nonce).
 */
import { createHash } from 'node:crypto';
import { publicKeyFromProtobuf, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { decode, encode } from 'cborg';
import { z } from 'zod';
import type {
  ContactsRecord,
  DescriptorRecord,
  RemovalRecord,
  SignedBlob,
  SignedRecord,
  TombstoneRecord,
} from '../index/records.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';
import {
  checkWireCounts,
  profileFromWire,
  profileToWire,
  wireProfileSchema,
} from './wire-profile.ts';

const SIGNING_DOMAIN = Buffer.from('cidx/record/v1\0', 'utf8');
const ID_DOMAIN = Buffer.from('cidx/community/v1\0', 'utf8');
export const NONCE_BYTES = 16;
export const MAX_CONTACTS = 32;
export const MAX_ADDR_CHARS = 512;

/** CBOR decoding that refuses anything a well-formed record never holds. */
export const STRICT_CBOR = {
  strict: true,
  allowIndefinite: false,
  allowUndefined: false,
  allowInfinity: false,
  allowNaN: false,
  allowBigInt: false,
  rejectDuplicateMapKeys: true,
} as const;

/** A record that does not verify or decode; the message says why. */
export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

/** Community id: hex SHA-256 of the owner's public key and a nonce. */
export function communityId(owner: Uint8Array, nonce: Uint8Array): string {
  return createHash('sha256').update(ID_DOMAIN).update(owner).update(nonce).digest('hex');
}

const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'must be a byte string');
const version = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const head = {
  id: z.string().regex(/^[0-9a-f]{64}$/),
  n: bytes.refine((b) => b.length === NONCE_BYTES),
  v: version,
};
const payloadSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('d'), ...head, ...wireProfileSchema.shape }),
  z.object({
    t: z.literal('c'),
    ...head,
    a: z.array(z.string().max(MAX_ADDR_CHARS)).max(MAX_CONTACTS),
  }),
  z.object({ t: z.literal('r'), ...head, k: bytes.refine((b) => b.length > 0 && b.length <= 64) }),
  z.object({ t: z.literal('x'), ...head }),
]);

/** What an owner signs, before encoding. */
export type RecordContent =
  | { kind: 'descriptor'; id: string; nonce: Uint8Array; version: number; profile: Profile }
  | { kind: 'contacts'; id: string; nonce: Uint8Array; version: number; addrs: string[] }
  | { kind: 'removal'; id: string; nonce: Uint8Array; version: number; key: Uint8Array }
  | { kind: 'tombstone'; id: string; nonce: Uint8Array; version: number };

function payloadOf(c: RecordContent): Uint8Array {
  const h = { id: c.id, n: c.nonce, v: c.version };
  switch (c.kind) {
    case 'descriptor':
      return encode({ t: 'd', ...h, ...profileToWire(c.profile) });
    case 'contacts':
      return encode({ t: 'c', ...h, a: c.addrs });
    case 'removal':
      return encode({ t: 'r', ...h, k: c.key });
    case 'tombstone':
      return encode({ t: 'x', ...h });
  }
}

/** Signs a record with the owner's key. */
export async function signRecord(key: PrivateKey, content: RecordContent): Promise<SignedBlob> {
  const payload = payloadOf(content);
  const sig = await key.sign(Buffer.concat([SIGNING_DOMAIN, payload]));
  return { payload, owner: publicKeyToProtobuf(key.publicKey), sig };
}

/**
 * Verifies and decodes a signed record. Throws RecordError when the signature, the encoding,
 * the fields or the id derivation is wrong; never returns a half-checked record.
 */
export async function openRecord(
  blob: SignedBlob,
  profileLimits: ParseOptions = {},
  opts: { verified?: boolean } = {},
): Promise<SignedRecord> {
  // `verified`: the caller checked this blob before (a node reloading its own store).
  if (opts.verified !== true) {
    let ok: boolean;
    try {
      const pk = publicKeyFromProtobuf(blob.owner);
      ok = await pk.verify(Buffer.concat([SIGNING_DOMAIN, blob.payload]), blob.sig);
    } catch (err) {
      throw new RecordError(`bad owner key or signature (${(err as Error).message})`);
    }
    if (!ok) throw new RecordError('signature does not verify');
  }
  const shareKey = sharedKey(blob.payload, profileLimits);
  const shared = sharedDescriptor(shareKey);
  if (shared !== undefined) {
    if (communityId(blob.owner, shared.nonce) !== shared.id)
      throw new RecordError('id does not derive from owner and nonce');
    const { id, nonce, version, profile, payload } = shared;
    const h = { id, nonce, version, owner: blob.owner, blob: { ...blob, payload } };
    return { kind: 'descriptor', ...h, profile } satisfies DescriptorRecord;
  }
  let raw: unknown;
  try {
    raw = decode(blob.payload, STRICT_CBOR);
  } catch (err) {
    throw new RecordError(`payload is not valid CBOR (${(err as Error).message})`);
  }
  // A descriptor over the profile limits is refused by its counts, before every entry is validated.
  if (typeof raw === 'object' && raw !== null && (raw as { t?: unknown }).t === 'd') {
    try {
      checkWireCounts(raw, profileLimits);
    } catch (err) {
      throw new RecordError(`profile: ${(err as Error).message}`);
    }
  }
  const parsed = payloadSchema.safeParse(raw);
  if (!parsed.success)
    throw new RecordError(`payload: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`);
  const p = parsed.data;
  if (communityId(blob.owner, p.n) !== p.id)
    throw new RecordError('id does not derive from owner and nonce');
  const h = { id: p.id, nonce: p.n, version: p.v, owner: blob.owner, blob };
  switch (p.t) {
    case 'd': {
      let profile: Profile;
      try {
        profile = profileFromWire(p, profileLimits);
      } catch (err) {
        throw new RecordError(`profile: ${(err as Error).message}`);
      }
      share(shareKey, { id: p.id, nonce: p.n, version: p.v, profile, payload: blob.payload });
      return { kind: 'descriptor', ...h, profile } satisfies DescriptorRecord;
    }
    case 'c':
      for (const a of p.a) checkContactAddr(a);
      return { kind: 'contacts', ...h, addrs: p.a } satisfies ContactsRecord;
    case 'r':
      return { kind: 'removal', ...h, key: p.k } satisfies RemovalRecord;
    case 'x':
      return { kind: 'tombstone', ...h } satisfies TombstoneRecord;
  }
}

/**
 * Descriptors already opened in this process, by payload digest and profile limits. The same
 * signed descriptor reaches many nodes — every replica of every key in a simulation, and the
 * same record under several keys on one node — and its parsed profile (an adjacency map for a
 * matrix: about 1 MB at 3,700 relations) is immutable, so all of them can share one copy of it
 * and of the payload bytes. Signatures are still checked on every open; only the parse is
 * shared. Weak references: a profile nobody holds any more leaves the table.
 */
interface SharedDescriptor {
  id: string;
  nonce: Uint8Array;
  version: number;
  profile: Profile;
  payload: Uint8Array;
}
// Keyed weakly by the profile, which every record opened from the payload holds: the entry
// lives exactly as long as one of them does.
const sharedProfiles = new Map<string, WeakRef<Profile>>();
const sharedMeta = new WeakMap<Profile, SharedDescriptor>();
const forget = new FinalizationRegistry<string>((key) => {
  if (sharedProfiles.get(key)?.deref() === undefined) sharedProfiles.delete(key);
});

function sharedKey(payload: Uint8Array, limits: ParseOptions): string {
  const digest = createHash('sha256').update(payload).digest('base64');
  return `${limits.maxAttributes ?? ''}/${limits.maxRelations ?? ''}/${digest}`;
}

function sharedDescriptor(key: string): SharedDescriptor | undefined {
  const profile = sharedProfiles.get(key)?.deref();
  return profile === undefined ? undefined : sharedMeta.get(profile);
}

function share(key: string, d: SharedDescriptor): void {
  sharedProfiles.set(key, new WeakRef(d.profile));
  sharedMeta.set(d.profile, d);
  forget.register(d.profile, key);
}

/** A contact address must be a multiaddr that names its peer (ends in /p2p/<peer id>). */
export function checkContactAddr(addr: string): void {
  let peer: string | null;
  try {
    peer =
      multiaddr(addr)
        .getComponents()
        .findLast((c) => c.name === 'p2p')?.value ?? null;
  } catch (err) {
    throw new RecordError(
      `contact ${JSON.stringify(addr)} is not a multiaddr (${(err as Error).message})`,
    );
  }
  if (peer === null || !addr.endsWith(`/p2p/${peer}`)) {
    throw new RecordError(`contact ${JSON.stringify(addr)} must end in /p2p/<peer id>`);
  }
}
