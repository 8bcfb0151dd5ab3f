import type { Profile } from '../profile/profile.ts';
import { lshIdentifierWords } from './lsh.ts';
import { type IndexParams, resolveIndexParams } from './params.ts';
import { attributeKey, bandKey } from './rehash.ts';

/**
 * The DHT keys a profile is stored and searched under: one per attribute in attribute mode
 * (in profile order), one per band in LSH mode (band order), already re-hashed.
 */
export function indexKeys(p: Profile, params: IndexParams): Uint8Array[] {
  const resolved = resolveIndexParams(params);
  if (resolved.mode === 'attribute') return [...p.attributes()].map(attributeKey);
  const { ids, n, digest } = lshIdentifierWords(p, resolved);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(bandKey(digest, i, ids[2 * i] as number, ids[2 * i + 1] as number));
  }
  return keys;
}
