import type { Profile } from '../profile/profile.ts';
import { hex } from '../util/bytes.ts';
import { attributeHashes } from './attribute-hash.ts';
import type { LshFamily } from './family.ts';
import { ophFamily } from './oph.ts';
import {
  type FamilyName,
  type LshParams,
  lshParamsDigest,
  type ResolvedLshParams,
  resolveLshParams,
} from './params.ts';
import { SeededStream } from './random.ts';
import { tabulationFamily } from './tabulation.ts';
import { thesisFamily } from './thesis.ts';

const BUILDERS: Record<
  FamilyName,
  (n: number, m: number, bits: number, rng: SeededStream) => LshFamily
> = {
  oph: ophFamily,
  tabulation: tabulationFamily,
  thesis: thesisFamily,
};

// Building a family's tables takes milliseconds; a node uses one parameter set, a benchmark a
// handful, so a small cache keyed by the parameters' digest suffices.
const CACHE_SIZE = 16;
const cache = new Map<string, { family: LshFamily; digest: Uint8Array }>();

/** The family the parameters name, with its functions drawn from the seed; cached. */
export function lshFamily(params: LshParams): { family: LshFamily; digest: Uint8Array } {
  const p: ResolvedLshParams = resolveLshParams(params);
  // The canonical string is cheap to build; the digest is only computed on a cache miss.
  const id = JSON.stringify([p.family, p.bits, p.n, p.m, p.seed]);
  let entry = cache.get(id);
  if (entry === undefined) {
    const digest = lshParamsDigest(p);
    const rng = new SeededStream(`cidx/lsh/${p.family}`, hex(digest));
    entry = { family: BUILDERS[p.family as FamilyName](p.n, p.m, p.bits, rng), digest };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(id, entry);
  }
  return entry;
}

/** The n·m min-hash values of a profile's attribute set, as (hi, lo) word pairs, band-major. */
export function lshSignature(p: Profile, params: LshParams): Uint32Array {
  return signatureOf(p, lshFamily(params).family);
}

function signatureOf(p: Profile, family: LshFamily): Uint32Array {
  const out = new Uint32Array(2 * family.n * family.m);
  family.minima(attributeHashes(p), p.size, out);
  return out;
}

/** The n identifiers of a profile as (hi, lo) word pairs, with the family's digest. */
export function lshIdentifierWords(
  p: Profile,
  params: LshParams,
): { ids: Uint32Array; n: number; digest: Uint8Array } {
  const { family, digest } = lshFamily(params);
  return { ids: bandIdentifiers(signatureOf(p, family), family.n, family.m), n: family.n, digest };
}

/** Algorithm 4.2's last step: identifier i = XOR of band i's m minima, as (hi, lo) word pairs. */
export function bandIdentifiers(signature: Uint32Array, n: number, m: number): Uint32Array {
  const ids = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    let hi = 0;
    let lo = 0;
    for (let j = i * m; j < (i + 1) * m; j++) {
      hi ^= signature[2 * j] as number;
      lo ^= signature[2 * j + 1] as number;
    }
    ids[2 * i] = hi >>> 0;
    ids[2 * i + 1] = lo >>> 0;
  }
  return ids;
}

/** The n raw LSH identifiers of a profile (before re-hashing), each below 2^bits. */
export function lshIdentifiers(p: Profile, params: LshParams): bigint[] {
  const { ids, n } = lshIdentifierWords(p, params);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    out.push((BigInt(ids[2 * i] as number) << 32n) | BigInt(ids[2 * i + 1] as number));
  }
  return out;
}

/** Jaccard estimate from two signatures of the same family: the fraction of equal minima. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length || a.length === 0) throw new RangeError('signatures differ in size');
  let equal = 0;
  for (let i = 0; i < a.length; i += 2) {
    if (a[i] === b[i] && a[i + 1] === b[i + 1]) equal++;
  }
  return equal / (a.length / 2);
}
