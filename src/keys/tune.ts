import { checkInt, ParamsError } from './params.ts';

/**
 * Choosing the LSH parameters (n bands of m min-hashes) for a similarity threshold t.
 *
 * The error part is datasketch's `_optimal_param` (datasketch/lsh.py): the false-positive area
 * ∫₀ᵗ P(s) ds and the false-negative area ∫ₜ¹ (1 − P(s)) ds under the S-curve
 * P(s) = 1 − (1 − sᵐ)ⁿ, weighted by the *raw* (not normalised) weights, defaults 0.5 / 0.5 as
 * there. Unlike datasketch, whose only budget is n·m ≤ num_perm, cidx pays for bands in the
 * network: each band is one DHT lookup per search and one stored copy per profile, so the
 * objective adds `bandCost · n`. Rows (m) are free at run time (a few more hash minima), so
 * only the box 1 ≤ m ≤ maxRows bounds them.
 */

export const DEFAULT_FP_WEIGHT = 0.5;
export const DEFAULT_FN_WEIGHT = 0.5;
/**
 * What one band (one lookup per search, one copy per profile) must buy in weighted error.
 * With uniformly spread similarities, FP + FN is the share of pairs misclassified, so at the
 * 0.5 / 0.5 weights 0.001 asks each band to save 0.2 percentage points of it. At t = 0.5 that
 * stops at n = 17, m = 5 (error 0.0475), near the swarm's default of 20 bands, where the gains
 * per band fall below 0.001; pure error (0) runs to the edge of the box, n = 32, m = 6, for
 * 0.0411: almost twice the lookups and storage for 13 % less error.
 */
export const DEFAULT_BAND_COST = 0.001;
export const DEFAULT_MAX_BANDS = 32;
export const DEFAULT_MAX_ROWS = 8;
export const TUNE_MAX_BANDS = 1024;
export const TUNE_MAX_ROWS = 64;

export interface TuneOptions {
  /** Similarity threshold t in (0, 1): pairs above it should collide, pairs below should not. */
  threshold: number;
  /** Weight of the false-positive area (raw, as in datasketch; default 0.5). */
  falsePositiveWeight?: number;
  /** Weight of the false-negative area (raw, as in datasketch; default 0.5). */
  falseNegativeWeight?: number;
  /** Objective charged per band; 0 reproduces datasketch's pure-error choice. */
  bandCost?: number;
  /** Search n in 1..maxBands (default 32). */
  maxBands?: number;
  /** Search m in 1..maxRows (default 8). */
  maxRows?: number;
}

export type ResolvedTuneOptions = Required<TuneOptions>;

/** One (n, m) pair with its error, network cost and objective. */
export interface TuneCandidate {
  n: number;
  m: number;
  /** ∫₀ᵗ P(s) ds */
  falsePositive: number;
  /** ∫ₜ¹ (1 − P(s)) ds */
  falseNegative: number;
  /** falsePositiveWeight · falsePositive + falseNegativeWeight · falseNegative */
  error: number;
  /** DHT lookups per search: one per band. */
  lookupsPerSearch: number;
  /** Stored copies per profile: one per band. */
  copiesPerProfile: number;
  /** bandCost · n */
  cost: number;
  /** error + cost: what is minimised. */
  objective: number;
}

export interface TuneResult {
  options: ResolvedTuneOptions;
  chosen: TuneCandidate;
  /** For each n in 1..maxBands, its best m (the curve the choice is made on). */
  curve: (TuneCandidate & { chosen: boolean })[];
  /** The chosen S-curve P(s) at s = 0, 0.05, …, 1. */
  sCurve: { s: number; p: number }[];
}

/**
 * P(s) = 1 − (1 − sᵐ)ⁿ: the probability that two profiles of Jaccard similarity s share at
 * least one of n band identifiers. Computed as −expm1(n·log1p(−sᵐ)) so that n·sᵐ far below
 * 2⁻⁵³ does not round to 0 (`0 −` turns −0 into 0).
 */
export function collisionProbability(s: number, n: number, m: number): number {
  return 0 - Math.expm1(n * Math.log1p(-(s ** m)));
}

/** 1 − P(s) = (1 − sᵐ)ⁿ, computed directly: 1 − P loses the digits when P is near 1. */
function missProbability(s: number, n: number, m: number): number {
  return Math.exp(n * Math.log1p(-(s ** m)));
}

/** ∫₀ᵗ P(s) ds: how much of the curve lies below the threshold (pairs found but unwanted). */
export function falsePositiveArea(threshold: number, n: number, m: number): number {
  return integrate((s) => collisionProbability(s, n, m), 0, threshold);
}

/** ∫ₜ¹ (1 − P(s)) ds: how much is missing above the threshold (pairs wanted but not found). */
export function falseNegativeArea(threshold: number, n: number, m: number): number {
  return integrate((s) => missProbability(s, n, m), threshold, 1);
}

/** Panels the interval is first cut into, so that a narrow step is sampled at all. */
const START_PANELS = 16;
const MAX_DEPTH = 30;

/**
 * ∫ₐᵇ f by adaptive Simpson's rule (with Richardson's correction) to an absolute `tolerance`.
 * A fixed grid would need ~10⁵ points for the steepest curves of the search box
 * (n = 1024, m = 1 rises within s < 0.005); halving only where the two Simpson estimates
 * disagree keeps that to a few hundred evaluations.
 */
export function integrate(
  f: (x: number) => number,
  a: number,
  b: number,
  tolerance = 1e-10,
): number {
  const width = (b - a) / START_PANELS;
  let sum = 0;
  for (let i = 0; i < START_PANELS; i++) {
    const lo = a + i * width;
    const hi = i === START_PANELS - 1 ? b : a + (i + 1) * width;
    const mid = (lo + hi) / 2;
    const [flo, fmid, fhi] = [f(lo), f(mid), f(hi)];
    const whole = ((hi - lo) / 6) * (flo + 4 * fmid + fhi);
    sum += adaptiveSimpson(f, lo, flo, mid, fmid, hi, fhi, whole, tolerance / START_PANELS, 0);
  }
  return sum;
}

function adaptiveSimpson(
  f: (x: number) => number,
  a: number,
  fa: number,
  m: number,
  fm: number,
  b: number,
  fb: number,
  whole: number,
  tolerance: number,
  depth: number,
): number {
  const lm = (a + m) / 2;
  const rm = (m + b) / 2;
  const flm = f(lm);
  const frm = f(rm);
  const left = ((m - a) / 6) * (fa + 4 * flm + fm);
  const right = ((b - m) / 6) * (fm + 4 * frm + fb);
  const delta = left + right - whole;
  // |delta| / 15 estimates the error of left + right; adding it is Richardson extrapolation.
  if (depth >= MAX_DEPTH || Math.abs(delta) <= 15 * tolerance) return left + right + delta / 15;
  return (
    adaptiveSimpson(f, a, fa, lm, flm, m, fm, left, tolerance / 2, depth + 1) +
    adaptiveSimpson(f, m, fm, rm, frm, b, fb, right, tolerance / 2, depth + 1)
  );
}

/** Scores one (n, m) pair. */
export function evaluateLsh(options: ResolvedTuneOptions, n: number, m: number): TuneCandidate {
  const falsePositive = falsePositiveArea(options.threshold, n, m);
  const falseNegative = falseNegativeArea(options.threshold, n, m);
  const error =
    options.falsePositiveWeight * falsePositive + options.falseNegativeWeight * falseNegative;
  const cost = options.bandCost * n;
  return {
    n,
    m,
    falsePositive,
    falseNegative,
    error,
    lookupsPerSearch: n,
    copiesPerProfile: n,
    cost,
    objective: error + cost,
  };
}

/**
 * The (n, m) of least objective over 1..maxBands × 1..maxRows. Ties go to the smaller n, then
 * the smaller m (datasketch's loop order with a strict `<`): fewer bands are cheaper.
 */
export function tuneLsh(options: TuneOptions): TuneResult {
  const o = resolveTuneOptions(options);
  const best: TuneCandidate[] = [];
  for (let n = 1; n <= o.maxBands; n++) {
    let row = evaluateLsh(o, n, 1);
    for (let m = 2; m <= o.maxRows; m++) {
      const c = evaluateLsh(o, n, m);
      if (c.objective < row.objective) row = c;
    }
    best.push(row);
  }
  const chosen = best.reduce((a, c) => (c.objective < a.objective ? c : a));
  return {
    options: o,
    chosen,
    curve: best.map((c) => ({ ...c, chosen: c === chosen })),
    sCurve: Array.from({ length: 21 }, (_, i) => {
      const s = i / 20;
      return { s, p: collisionProbability(s, chosen.n, chosen.m) };
    }),
  };
}

/** Checks the options and fills in the defaults; a `ParamsError` names the bad one. */
export function resolveTuneOptions(options: TuneOptions): ResolvedTuneOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ParamsError('options', 'must be an object');
  }
  const { threshold } = options;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold < 1)) {
    throw new ParamsError('threshold', 'must be a number in (0, 1)');
  }
  const o: ResolvedTuneOptions = {
    threshold,
    falsePositiveWeight: options.falsePositiveWeight ?? DEFAULT_FP_WEIGHT,
    falseNegativeWeight: options.falseNegativeWeight ?? DEFAULT_FN_WEIGHT,
    bandCost: options.bandCost ?? DEFAULT_BAND_COST,
    maxBands: options.maxBands ?? DEFAULT_MAX_BANDS,
    maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
  };
  checkNonNegative('falsePositiveWeight', o.falsePositiveWeight);
  checkNonNegative('falseNegativeWeight', o.falseNegativeWeight);
  if (o.falsePositiveWeight === 0 && o.falseNegativeWeight === 0) {
    // Every curve would score 0 error: the choice would say nothing.
    throw new ParamsError('falseNegativeWeight', 'must not be 0 when falsePositiveWeight is 0');
  }
  checkNonNegative('bandCost', o.bandCost);
  checkInt('maxBands', o.maxBands, 1, TUNE_MAX_BANDS);
  checkInt('maxRows', o.maxRows, 1, TUNE_MAX_ROWS);
  return o;
}

function checkNonNegative(field: string, v: unknown): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new ParamsError(field, 'must be a finite number >= 0');
  }
}
