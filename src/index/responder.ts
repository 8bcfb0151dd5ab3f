/**
 * The storing side of ProfilesDHT, per key (thesis algorithms 4.12–4.14): pure functions over
 * the node's IndexTable. The network handlers verify signatures and call these.
 */
import type { Profile } from '../profile/profile.ts';
import { similarity } from '../profile/similarity.ts';
import { hex } from '../util/bytes.ts';
import type { IndexTable, Outcome } from './index-table.ts';
import type { DescriptorRecord, RankedDescriptor } from './records.ts';
import { type SeenFilter, seenHas } from './seen-filter.ts';
import { selectSimilar } from './select-similar.ts';

/**
 * How a responder scores a stored descriptor against a profile: `similarity`, or the same
 * values from a cache (many simulated responders in one process score the same pairs).
 */
export type Score = (profile: Profile, record: DescriptorRecord) => number;

const exact: Score = (profile, record) => similarity(profile, record.profile);

/** Algorithm 4.12, GetSimilarCommunities: the k descriptors under `key` most similar to `profile`. */
export function getSimilarCommunities(
  table: IndexTable,
  key: Uint8Array,
  profile: Profile,
  k: number,
  now: number,
  score: Score = exact,
): RankedDescriptor[] {
  return selectSimilar(table.descriptors(hex(key), now), profile, k, undefined, (r) =>
    score(profile, r),
  );
}

/** Splits a ranking into what the requester's filter does not hold and how many it does. */
export function leaveOutSeen(
  ranked: RankedDescriptor[],
  seen: SeenFilter | undefined,
): { kept: RankedDescriptor[]; omitted: number } {
  if (seen === undefined) return { kept: ranked, omitted: 0 };
  const kept = ranked.filter((r) => !seenHas(seen, r.record.id, r.record.version));
  return { kept, omitted: ranked.length - kept.length };
}

/**
 * Algorithm 4.13, StoreDescriptor: select the s descriptors under `key` most similar to the new
 * one (for the requester to notify), then store it. A refused write still returns the
 * selection only when it was a refresh; a stale or forged-looking write learns nothing.
 */
export function storeDescriptor(
  table: IndexTable,
  key: Uint8Array,
  record: DescriptorRecord,
  s: number,
  now: number,
  score: Score = exact,
): { outcome: Outcome; similar: RankedDescriptor[] } {
  const k = hex(key);
  const similar = selectSimilar(table.descriptors(k, now), record.profile, s, record.id, (r) =>
    score(record.profile, r),
  );
  const outcome = table.putDescriptor(k, record, now);
  return { outcome, similar: outcome === 'stored' || outcome === 'refreshed' ? similar : [] };
}

/**
 * Algorithm 4.14, UpdateDescriptor: remove the old version (the table replaces it, as the new
 * version is higher), select the s most similar, store the new one.
 */
export function updateDescriptor(
  table: IndexTable,
  key: Uint8Array,
  record: DescriptorRecord,
  s: number,
  now: number,
  score: Score = exact,
): { outcome: Outcome; similar: RankedDescriptor[] } {
  return storeDescriptor(table, key, record, s, now, score);
}
