import type { Profile } from './profile.ts';

/**
 * Similarity of two profiles: metric 4.2 when both are adjacency matrices, metric 4.1 otherwise
 * (a matrix compared with a vector is compared as a vector).
 */
export function similarity(a: Profile, b: Profile): number {
  return a.isMatrix && b.isMatrix ? similarityMatrix(a, b) : similarityVector(a, b);
}

/**
 * Metric 4.1 (algorithm 4.16, CalculateSimilarity):
 * SIM_V = Σ_{o ∈ P1∩P2} min(W1(o), W2(o)) / max(|P1|, |P2|).
 */
export function similarityVector(a: Profile, b: Profile): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const terms: number[] = [];
  for (const [o, w] of small.weights) {
    const w2 = large.weights.get(o);
    if (w2 !== undefined) terms.push(Math.min(w, w2));
  }
  return finish(canonicalSum(terms) / large.size);
}

/**
 * Metric 4.2 (algorithm 4.21): for each common attribute o, RW = min(W1(o), W2(o)) and
 * rowSim = mean of min(Rel1(o,o'), Rel2(o,o')) over the other common attributes o' related to o
 * (Rel > 0 in either profile); o contributes RW + RW·rowSim (just RW when o has no such o').
 * The sum is divided by max(|P1|, |P2|). The printed algorithm divides rowSim by the count of
 * all other common attributes; formula 4.2's denominator counts only related ones, and the
 * formula is the definition (it also gives the thesis's fig 4.7 value).
 */
export function similarityMatrix(a: Profile, b: Profile): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const terms: number[] = [];
  const row: number[] = [];
  for (const [o, w] of small.weights) {
    const w2 = large.weights.get(o);
    if (w2 === undefined) continue;
    const rw = Math.min(w, w2);
    row.length = 0;
    const nSmall = small.neighbours(o);
    const nLarge = large.neighbours(o);
    for (const [o2, r1] of nSmall) {
      if (!large.has(o2)) continue; // o2 ∈ small already: it is a neighbour there
      const r2 = nLarge.get(o2) ?? 0;
      if (r1 > 0 || r2 > 0) row.push(Math.min(r1, r2));
    }
    for (const [o2, r2] of nLarge) {
      // Pairs related in `small` were handled above; here only relations `large` alone holds.
      if (r2 > 0 && !nSmall.has(o2) && small.has(o2)) row.push(0);
    }
    terms.push(row.length === 0 ? rw : rw + rw * (canonicalSum(row) / row.length));
  }
  return finish(canonicalSum(terms) / large.size);
}

/** Jaccard similarity of the two attribute sets, |A∩B| / |A∪B|. */
export function jaccard(a: Profile, b: Profile): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const o of small.weights.keys()) if (large.has(o)) common++;
  return common / (a.size + b.size - common);
}

/**
 * Floating-point addition is not associative: summing in ascending order makes the result
 * independent of which profile is iterated (so similarity(a,b) === similarity(b,a), and a
 * responder and a requester rank alike) and loses the least precision.
 */
function canonicalSum(values: number[]): number {
  if (values.length > 1) values.sort((x, y) => x - y);
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * Rounds to 12 significant digits: binary rounding noise (0.81 + 0.62 = 1.4300000000000002)
 * would otherwise show in every score; 12 digits keep far more precision than any weight carries.
 */
function finish(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const scale = 10 ** (11 - Math.floor(Math.log10(Math.abs(x))));
  if (!Number.isFinite(scale) || scale === 0) return x; // beyond double range: leave as is
  return Math.round(x * scale) / scale;
}
