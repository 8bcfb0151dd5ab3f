import { randomBytes } from 'node:crypto';
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import type { DescriptorRecord, SignedRecord } from '../../src/index/records.ts';
import { communityId, openRecord, type RecordContent, signRecord } from '../../src/net/records.ts';
import { parseProfile } from '../../src/profile/parse.ts';

/** An owner identity for tests: a key, and the id of a community it owns. */
export async function owner(): Promise<{ key: PrivateKey; nonce: Uint8Array; id: string }> {
  const key = await generateKeyPair('Ed25519');
  const nonce = new Uint8Array(randomBytes(16));
  return { key, nonce, id: communityId(publicKeyToProtobuf(key.publicKey), nonce) };
}

export async function signed(key: PrivateKey, content: RecordContent): Promise<SignedRecord> {
  return openRecord(await signRecord(key, content));
}

export async function descriptor(
  o: { key: PrivateKey; nonce: Uint8Array; id: string },
  version: number,
  weights: Record<string, number>,
): Promise<DescriptorRecord> {
  return (await signed(o.key, {
    kind: 'descriptor',
    id: o.id,
    nonce: o.nonce,
    version,
    profile: parseProfile({ weights }),
  })) as DescriptorRecord;
}
