/**
 * Pairs of attribute sets with a known Jaccard similarity, for measuring LSH collision rates
 * (the thesis's experiment 5.3.1). Deterministic: every set derives from the seed.
 */
import { Profile } from '../../src/index.ts';
import { SeededStream } from '../../src/keys/random.ts';

export type AttributeKind = 'hashed' | 'consecutive';

export interface JaccardPair {
  a: Profile;
  b: Profile;
  /** The exact Jaccard similarity of the two attribute sets. */
  jaccard: number;
}

/** How many of `size` attributes to replace for a Jaccard similarity closest to `s`. */
function replacementsFor(size: number, s: number): number {
  return Math.round((size * (1 - s)) / (1 + s));
}

/**
 * `count` pairs of `size`-attribute sets, B = A with r attributes replaced, J = (size−r)/(size+r).
 * `hashed`: attributes are random 16-hex-digit strings. `consecutive`: A is a window of small
 * consecutive integers ("1", "2", …) and B the same window shifted by r.
 */
export function jaccardPairs(
  kind: AttributeKind,
  size: number,
  s: number,
  count: number,
  seed: string,
): JaccardPair[] {
  const r = replacementsFor(size, s);
  const rng = new SeededStream('test/pairs', `${seed}/${kind}/${size}/${s}`);
  const hex = () =>
    rng.nextUint32().toString(16).padStart(8, '0') + rng.nextUint32().toString(16).padStart(8, '0');
  const pairs: JaccardPair[] = [];
  for (let i = 0; i < count; i++) {
    let a: string[];
    let b: string[];
    if (kind === 'hashed') {
      a = Array.from({ length: size }, hex);
      b = [...a.slice(r), ...Array.from({ length: r }, hex)];
    } else {
      const off = rng.below(100_000);
      a = Array.from({ length: size }, (_, k) => String(off + k + 1));
      b = Array.from({ length: size }, (_, k) => String(off + r + k + 1));
    }
    pairs.push({ a: setOf(a), b: setOf(b), jaccard: (size - r) / (size + r) });
  }
  return pairs;
}

/**
 * A set of valid attributes as a profile, built from a Map: an object with 150 fresh keys per
 * profile (`Object.fromEntries`) is slow to build in V8, and made building the pairs cost as
 * much as hashing them (docs/BENCHMARKS.md, the test suite's run time).
 */
function setOf(attrs: string[]): Profile {
  return Profile.fromTrusted(new Map(attrs.map((x) => [x, 1])));
}

/** 1 − (1 − s^m)^n: the probability that two sets of Jaccard s share at least one of n bands. */
export function bandCollisionProbability(s: number, n: number, m: number): number {
  return 1 - (1 - s ** m) ** n;
}
