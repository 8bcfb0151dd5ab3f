import { createHash } from 'node:crypto';

const BAND_DOMAIN = Buffer.from('cidx/band-key/v1\0', 'utf8');
const ATTRIBUTE_DOMAIN = Buffer.from('cidx/attribute-key/v1\0', 'utf8');

/**
 * The DHT key of band i (thesis §5.4.3, re-hashing): SHA-256 of (the parameters' digest, i,
 * identifier i). Raw min-hash identifiers crowd the low end of the id space; hashing them again
 * spreads keys uniformly without changing which profiles collide. The band index keeps equal
 * identifiers of different bands apart; the digest keeps swarms with other parameters apart.
 */
export function bandKey(digest: Uint8Array, band: number, hi: number, lo: number): Uint8Array {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(band, 0);
  buf.writeUInt32BE(hi, 4);
  buf.writeUInt32BE(lo, 8);
  return view(createHash('sha256').update(BAND_DOMAIN).update(digest).update(buf).digest());
}

/** The DHT key of one attribute in per-attribute indexing: SHA-256 of its UTF-8 bytes. */
export function attributeKey(attribute: string): Uint8Array {
  return view(createHash('sha256').update(ATTRIBUTE_DOMAIN).update(attribute, 'utf8').digest());
}

function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

const ADDRESS_DOMAIN = Buffer.from('cidx/address-key/v1\0', 'utf8');

/** The AddressesDHT key of a community: SHA-256 of its id. */
export function communityAddressKey(id: string): Uint8Array {
  return view(createHash('sha256').update(ADDRESS_DOMAIN).update(id, 'utf8').digest());
}
