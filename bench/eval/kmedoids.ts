/**
 * The thesis's level-1 stand-in (§5.3.2.1): k-means over Jaccard distance whose centres are
 * medoids (members), so a centre is itself a user profile that can be indexed and searched.
 * Voronoi iteration (assign to the nearest medoid, move each medoid to the member with the
 * least total distance to its cluster) from a seeded k-means++ start. Pure: distances come in.
 */

export interface Clustering {
  /** Index (into the items) of each cluster's medoid. */
  medoids: number[];
  /** Cluster of each item. */
  assignment: number[];
  iterations: number;
}

/**
 * `dist(i, j)` must be symmetric with dist(i, i) = 0; `random()` uniform in [0, 1).
 * Stops when no medoid moves, or after `maxIterations`.
 */
export function kMedoids(
  count: number,
  k: number,
  dist: (i: number, j: number) => number,
  random: () => number,
  maxIterations = 100,
): Clustering {
  if (!Number.isInteger(k) || k < 1 || k > count) throw new RangeError(`k must be in 1..${count}`);
  let medoids = kMeansPlusPlus(count, k, dist, random);
  let assignment = assign(count, medoids, dist);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    const next = medoids.map((m, c) => bestMember(assignment, c, dist) ?? m);
    if (next.every((m, c) => m === medoids[c])) break;
    medoids = next;
    assignment = assign(count, medoids, dist);
  }
  return { medoids, assignment, iterations };
}

/** k-means++ seeding: each next centre drawn with probability proportional to D(x)². */
function kMeansPlusPlus(
  count: number,
  k: number,
  dist: (i: number, j: number) => number,
  random: () => number,
): number[] {
  const centres = [Math.floor(random() * count)];
  const d2 = Array.from({ length: count }, (_, i) => dist(i, centres[0] as number) ** 2);
  while (centres.length < k) {
    const total = d2.reduce((s, x) => s + x, 0);
    let pick = -1;
    if (total > 0) {
      let r = random() * total;
      for (let i = 0; i < count; i++) {
        r -= d2[i] as number;
        if (r < 0 && !centres.includes(i)) {
          pick = i;
          break;
        }
      }
    }
    if (pick < 0)
      pick = Array.from({ length: count }, (_, i) => i).find((i) => !centres.includes(i)) as number;
    centres.push(pick);
    for (let i = 0; i < count; i++) d2[i] = Math.min(d2[i] as number, dist(i, pick) ** 2);
  }
  return centres;
}

function assign(
  count: number,
  medoids: number[],
  dist: (i: number, j: number) => number,
): number[] {
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    let best = 0;
    let bestD = Number.POSITIVE_INFINITY;
    medoids.forEach((m, c) => {
      const d = i === m ? -1 : dist(i, m);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    });
    out[i] = best;
  }
  return out;
}

function bestMember(
  assignment: number[],
  cluster: number,
  dist: (i: number, j: number) => number,
): number | undefined {
  const members = assignment.flatMap((c, i) => (c === cluster ? [i] : []));
  let best: number | undefined;
  let bestSum = Number.POSITIVE_INFINITY;
  for (const i of members) {
    let s = 0;
    for (const j of members) s += dist(i, j);
    if (s < bestSum) {
      bestSum = s;
      best = i;
    }
  }
  return best;
}
