import type { UserDocument } from './documents.ts';
import { ProfileError } from './errors.ts';
import { MAX_ATTRIBUTE_BYTES } from './parse.ts';
import { Profile, type Relation } from './profile.ts';
import { analyze, ENGLISH_STOPWORDS } from './text.ts';
import { utf8Length } from './utf8.ts';

/** Weight of a term in a document by the most important field it occurs in (thesis §5.2). */
export interface FieldWeights {
  keywords: number;
  text: number;
  title: number;
}

export interface BuildOptions {
  /** Terms kept in the profile, the most heavily weighted first (default 150). */
  top?: number;
  /** Field weights, keywords > body > title by default: 3, 2, 1. */
  fieldWeights?: FieldWeights;
  stopwords?: ReadonlySet<string>;
}

export interface BuiltProfile {
  /** The weighted vector: top terms with their mean weights. */
  vector: Profile;
  /** The adjacency matrix: the same weights plus Rel(a, b) of every co-occurring pair. */
  matrix: Profile;
  /** Distinct terms seen before the top-N cut. */
  distinctTerms: number;
}

export const DEFAULT_TOP_TERMS = 150;
export const DEFAULT_FIELD_WEIGHTS: FieldWeights = Object.freeze({
  keywords: 3,
  text: 2,
  title: 1,
});

/**
 * Builds a user's profile from the user's documents as the thesis did (§5.2): each document's
 * terms (stop-worded, Porter-stemmed) weigh by their most important field; a term's weight is its
 * mean weight over all the user's documents (0 where absent, so frequent terms rank above a
 * single keyword); the top N terms form the vector, equal weights ranked by occurrences. The matrix adds, for terms a, b co-occurring
 * in N_ab documents, Rel(a,b) = N_ab · avg(W_a, W_b) / max(N_a, N_b), N_x counting the documents
 * that hold x. Values are rounded to 6 significant digits to keep profiles compact on the wire.
 */
export function buildProfile(docs: readonly UserDocument[], opts: BuildOptions = {}): BuiltProfile {
  const top = opts.top ?? DEFAULT_TOP_TERMS;
  const fw = opts.fieldWeights ?? DEFAULT_FIELD_WEIGHTS;
  const stop = opts.stopwords ?? ENGLISH_STOPWORDS;
  if (!Number.isInteger(top) || top < 1) throw new ProfileError('top', 'must be an integer >= 1');
  for (const [field, w] of Object.entries(fw)) {
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) {
      throw new ProfileError(`fieldWeights.${field}`, 'must be a finite number > 0');
    }
  }
  if (docs.length === 0) throw new ProfileError('documents', 'at least one document is needed');

  const occurrences = new Map<string, number>();
  const perDoc: Map<string, number>[] = docs.map((d) => documentTerms(d, fw, stop, occurrences));
  const sum = new Map<string, number>();
  const df = new Map<string, number>();
  for (const terms of perDoc) {
    for (const [t, w] of terms) {
      sum.set(t, (sum.get(t) ?? 0) + w);
      df.set(t, (df.get(t) ?? 0) + 1);
    }
  }
  if (sum.size === 0) throw new ProfileError('documents', 'hold no terms after stop-word removal');

  const ranked = [...sum.entries()]
    .map(([t, s]) => [t, s / docs.length] as const)
    // Equal weights are common (one document: every body term weighs the same), so ties go to
    // the term used more often, and only then to the alphabet.
    .sort(
      (x, y) =>
        y[1] - x[1] ||
        (occurrences.get(y[0]) as number) - (occurrences.get(x[0]) as number) ||
        (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0),
    )
    .slice(0, top);
  const weights = new Map(ranked.map(([t, w]) => [t, round6(w)]));
  const index = new Map(ranked.map(([t], i) => [t, i]));

  // Co-occurrence counts of the kept terms, pair (i < j) keyed i·N + j.
  const n = ranked.length;
  const pairs = new Map<number, number>();
  for (const terms of perDoc) {
    const present: number[] = [];
    for (const t of terms.keys()) {
      const i = index.get(t);
      if (i !== undefined) present.push(i);
    }
    present.sort((x, y) => x - y);
    for (let x = 0; x < present.length; x++) {
      for (let y = x + 1; y < present.length; y++) {
        const key = (present[x] as number) * n + (present[y] as number);
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
    }
  }
  const relations: Relation[] = [...pairs.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([key, nab]) => {
      const [a, wa] = ranked[Math.floor(key / n)] as readonly [string, number];
      const [b, wb] = ranked[key % n] as readonly [string, number];
      const rel = (nab * ((wa + wb) / 2)) / Math.max(df.get(a) as number, df.get(b) as number);
      return [a, b, round6(rel)] as const;
    });
  return {
    vector: Profile.fromTrusted(weights),
    matrix: Profile.fromTrusted(new Map(weights), relations),
    distinctTerms: sum.size,
  };
}

function documentTerms(
  d: UserDocument,
  fw: FieldWeights,
  stop: ReadonlySet<string>,
  occurrences: Map<string, number>,
): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (text: string, w: number) => {
    for (const t of analyze(text, stop)) {
      if (utf8Length(t) > MAX_ATTRIBUTE_BYTES) continue;
      occurrences.set(t, (occurrences.get(t) ?? 0) + 1);
      if ((terms.get(t) ?? 0) < w) terms.set(t, w);
    }
  };
  if (d.title !== undefined) add(d.title, fw.title);
  add(d.text, fw.text);
  for (const k of d.keywords ?? []) add(k, fw.keywords);
  return terms;
}

/** Six significant digits; stays > 0 for any positive input (unlike rounding to decimals). */
function round6(x: number): number {
  return Number(x.toPrecision(6));
}
