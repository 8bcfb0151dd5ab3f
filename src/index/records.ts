import type { Profile } from '../profile/profile.ts';

/**
 * A record as its owner signed it: the encoded payload, the owner's public key (libp2p
 * protobuf encoding) and the signature over the payload. Stored and forwarded verbatim, so any
 * node can check it again.
 */
export interface SignedBlob {
  payload: Uint8Array;
  owner: Uint8Array;
  sig: Uint8Array;
}

/** Fields every signed record carries. The id derives from owner and nonce. */
interface RecordHead {
  /** Community id: hex SHA-256 of (owner public key, nonce). */
  id: string;
  nonce: Uint8Array;
  /** Grows with every change of the community; a record never replaces a newer one. */
  version: number;
  owner: Uint8Array;
  blob: SignedBlob;
}

/** A community descriptor: id + profile (thesis §1). */
export interface DescriptorRecord extends RecordHead {
  kind: 'descriptor';
  profile: Profile;
}

/** A community's contact peers: multiaddrs ending in /p2p/<peer id>. */
export interface ContactsRecord extends RecordHead {
  kind: 'contacts';
  addrs: string[];
}

/** Removes the descriptor from one key (an update's old-only keys); bound to that key. */
export interface RemovalRecord extends RecordHead {
  kind: 'removal';
  key: Uint8Array;
}

/** The community is dissolved: nothing of it may be stored again. */
export interface TombstoneRecord extends RecordHead {
  kind: 'tombstone';
}

export type SignedRecord = DescriptorRecord | ContactsRecord | RemovalRecord | TombstoneRecord;

/** A descriptor with its similarity to a query profile. */
export interface RankedDescriptor {
  record: DescriptorRecord;
  similarity: number;
}
