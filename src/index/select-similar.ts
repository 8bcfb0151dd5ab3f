import type { Profile } from '../profile/profile.ts';
import { similarity } from '../profile/similarity.ts';
import type { DescriptorRecord, RankedDescriptor } from './records.ts';

/**
 * Algorithm 4.15, SelectSimilarCommunities: rank candidate descriptors by similarity to the
 * profile (metric 4.1, or 4.2 when both are matrices) and keep the best k. Candidates with
 * similarity 0 share no attribute and are left out; `excludeId` leaves out the community being
 * stored. Ties are broken by id, so every node ranks alike.
 */
export function selectSimilar(
  candidates: Iterable<DescriptorRecord>,
  profile: Profile,
  k: number,
  excludeId?: string,
  // A caller ranking the same records against the same profile many times may pass a cached score.
  score: (record: DescriptorRecord) => number = (record) => similarity(profile, record.profile),
): RankedDescriptor[] {
  const ranked: RankedDescriptor[] = [];
  for (const record of candidates) {
    if (record.id === excludeId) continue;
    const s = score(record);
    if (s > 0) ranked.push({ record, similarity: s });
  }
  ranked.sort(compareRanked);
  return k < ranked.length ? ranked.slice(0, k) : ranked;
}

/** Best first: higher similarity, then smaller id. */
export function compareRanked(a: RankedDescriptor, b: RankedDescriptor): number {
  return (
    b.similarity - a.similarity ||
    (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0)
  );
}
