/**
 * The exact answer, computed centrally and outside the swarm: every live community sharing at
 * least one attribute with the query, ranked with the same metric the nodes use (4.1, or 4.2
 * between matrices). An inverted index keeps it fast enough for thousands of searches.
 */
import type { Profile } from '../src/profile/profile.ts';
import { similarity } from '../src/profile/similarity.ts';

export interface Ranked {
  id: string;
  similarity: number;
}

export class GroundTruth {
  readonly #profiles = new Map<string, Profile>();
  readonly #byAttribute = new Map<string, Set<string>>();

  get size(): number {
    return this.#profiles.size;
  }

  has(id: string): boolean {
    return this.#profiles.has(id);
  }

  set(id: string, profile: Profile): void {
    this.delete(id);
    this.#profiles.set(id, profile);
    for (const a of profile.attributes()) {
      let s = this.#byAttribute.get(a);
      if (s === undefined) {
        s = new Set();
        this.#byAttribute.set(a, s);
      }
      s.add(id);
    }
  }

  delete(id: string): void {
    const p = this.#profiles.get(id);
    if (p === undefined) return;
    for (const a of p.attributes()) this.#byAttribute.get(a)?.delete(id);
    this.#profiles.delete(id);
  }

  /** All candidates sharing an attribute, best first (ties by id), similarity > 0. */
  rank(query: Profile): Ranked[] {
    const candidates = new Set<string>();
    for (const a of query.attributes())
      for (const id of this.#byAttribute.get(a) ?? []) candidates.add(id);
    const out: Ranked[] = [];
    for (const id of candidates) {
      const s = similarity(query, this.#profiles.get(id) as Profile);
      if (s > 0) out.push({ id, similarity: s });
    }
    return out.sort(
      (a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }
}

/** Scores of one search against the exact answer (thesis §5.4 measures). */
export interface SearchScore {
  /** The exact answer has a result. */
  answerable: boolean;
  /** Returned nothing although the exact answer has something. */
  unresolved: boolean;
  /** Same best community (or one tied with it). */
  top1: boolean;
  /** |exact top-k ∩ returned| / |returned| (ties at the k-th place count as exact). */
  precision: number | null;
  /** (exact best similarity − returned best similarity) / exact best similarity. */
  relError: number | null;
}

export function scoreSearch(returned: Ranked[], exact: Ranked[], k: number): SearchScore {
  const [best] = exact;
  const [got] = returned;
  if (best === undefined)
    return {
      answerable: false,
      unresolved: false,
      top1: returned.length === 0,
      precision: null,
      relError: null,
    };
  if (got === undefined)
    return { answerable: true, unresolved: true, top1: false, precision: null, relError: null };
  const tie = 1e-9 * Math.max(1, best.similarity);
  const top1 = got.id === best.id || Math.abs(got.similarity - best.similarity) <= tie;
  const kth = (exact[Math.min(k, exact.length) - 1] as Ranked).similarity;
  const exactSet = new Set(
    exact.filter((r, i) => i < k || Math.abs(r.similarity - kth) <= tie).map((r) => r.id),
  );
  const hits = returned.filter((r) => exactSet.has(r.id)).length;
  return {
    answerable: true,
    unresolved: false,
    top1,
    precision: hits / returned.length,
    relError: Math.max(0, (best.similarity - got.similarity) / best.similarity),
  };
}
