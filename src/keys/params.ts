import { createHash } from 'node:crypto';
import { FieldError } from '../profile/errors.ts';

/** LSH parameters shared by every node of a swarm. */
export interface LshParams {
  /** Identifiers (bands) per profile. */
  n: number;
  /** Min-hash functions XORed into each identifier. */
  m: number;
  /** The swarm's seed string: every function derives from it. */
  seed: string;
  /** LSH family; `DEFAULT_FAMILY` when absent. */
  family?: string;
  /** Bits per identifier (default 64). */
  bits?: number;
}

export type IndexParams = { mode: 'attribute' } | ({ mode: 'lsh' } & LshParams);

/** LSH parameters with every default filled in. */
export type ResolvedLshParams = Required<LshParams>;

export const FAMILIES = ['oph', 'tabulation', 'thesis'] as const;
export type FamilyName = (typeof FAMILIES)[number];
/**
 * The default family: one-permutation hashing with optimal densification. It tracks
 * 1 − (1 − s^m)^n as closely as independent functions on the measured profiles and costs one
 * hash per attribute instead of n·m (docs/BENCHMARKS.md).
 */
export const DEFAULT_FAMILY: FamilyName = 'oph';
export const DEFAULT_BITS = 64;
export const MAX_N = 1024;
export const MAX_M = 64;
export const MAX_SEED_BYTES = 1024;

/** Index or LSH parameters that break a rule; the message names the parameter. */
export class ParamsError extends FieldError {
  constructor(field: string, problem: string) {
    super(field, problem);
    this.name = 'ParamsError';
  }
}

/** Checks LSH parameters and fills in the defaults. */
export function resolveLshParams(p: LshParams): ResolvedLshParams {
  if (typeof p !== 'object' || p === null) throw new ParamsError('params', 'must be an object');
  checkInt('n', p.n, 1, MAX_N);
  checkInt('m', p.m, 1, MAX_M);
  if (typeof p.seed !== 'string' || p.seed.length === 0) {
    throw new ParamsError('seed', 'must be a non-empty string');
  }
  if (!p.seed.isWellFormed() || Buffer.byteLength(p.seed) > MAX_SEED_BYTES) {
    throw new ParamsError('seed', `must be well-formed Unicode of at most ${MAX_SEED_BYTES} bytes`);
  }
  const family = p.family ?? DEFAULT_FAMILY;
  if (!(FAMILIES as readonly string[]).includes(family)) {
    throw new ParamsError(
      'family',
      `unknown family ${JSON.stringify(family)} (known: ${FAMILIES.join(', ')})`,
    );
  }
  const bits = p.bits ?? DEFAULT_BITS;
  if (![8, 16, 32, 64].includes(bits)) throw new ParamsError('bits', 'must be 8, 16, 32 or 64');
  return { n: p.n, m: p.m, seed: p.seed, family, bits };
}

/** Checks index parameters (attribute mode, or LSH mode with its parameters). */
export function resolveIndexParams(
  p: IndexParams,
): { mode: 'attribute' } | ({ mode: 'lsh' } & ResolvedLshParams) {
  if (typeof p !== 'object' || p === null) throw new ParamsError('params', 'must be an object');
  if (p.mode === 'attribute') return { mode: 'attribute' };
  if (p.mode === 'lsh') return { mode: 'lsh', ...resolveLshParams(p) };
  throw new ParamsError('mode', 'must be "attribute" or "lsh"');
}

/**
 * A digest naming the LSH functions: SHA-256 of the canonical parameter string. It goes into
 * every band key, so swarms with different parameters never share keys, and it names the cached
 * family tables.
 */
export function lshParamsDigest(p: ResolvedLshParams): Uint8Array {
  const canonical = JSON.stringify(['cidx/lsh/v1', p.family, p.bits, p.n, p.m, p.seed]);
  const d = createHash('sha256').update(canonical).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.length);
}

/** A ParamsError naming `field` unless `v` is an integer in [min, max]. */
export function checkInt(field: string, v: unknown, min: number, max: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ParamsError(field, `must be an integer in [${min}, ${max}]`);
  }
}
