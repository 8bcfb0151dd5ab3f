import { ProfileError } from './errors.ts';
import { Profile, type Relation } from './profile.ts';
import { utf8Length } from './utf8.ts';

export interface ParseOptions {
  /** Most attributes a profile may hold (default 4096). */
  maxAttributes?: number;
  /** Most relations a profile may hold (default 131072). */
  maxRelations?: number;
}

export const DEFAULT_MAX_ATTRIBUTES = 4096;
export const DEFAULT_MAX_RELATIONS = 131_072;
/** Longest attribute, in UTF-8 bytes. */
export const MAX_ATTRIBUTE_BYTES = 256;

/**
 * Validates a profile (the parsed JSON value, or a JSON string) against every rule of the profile
 * format and returns it as a `Profile`. Throws `ProfileError` naming the first offending field;
 * never repairs a value. Fields other than `weights` and `relations` (`id`, `user`, …) are ignored.
 */
export function parseProfile(json: unknown, options: ParseOptions = {}): Profile {
  const maxAttributes = options.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxRelations = options.maxRelations ?? DEFAULT_MAX_RELATIONS;
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new ProfileError('profile', `not valid JSON (${(err as Error).message})`);
    }
  }
  if (!isRecord(value)) throw new ProfileError('profile', 'must be a JSON object');
  const weights = parseWeights(value.weights, maxAttributes);
  const relations =
    value.relations === undefined ? null : parseRelations(value.relations, weights, maxRelations);
  return Profile.fromTrusted(weights, relations);
}

function parseWeights(raw: unknown, maxAttributes: number): Map<string, number> {
  if (raw === undefined) throw new ProfileError('weights', 'is required');
  if (!isRecord(raw)) throw new ProfileError('weights', 'must be an object of attribute → weight');
  const keys = Object.keys(raw);
  if (keys.length === 0) throw new ProfileError('weights', 'must hold at least 1 attribute');
  if (keys.length > maxAttributes) {
    throw new ProfileError(
      'weights',
      `holds ${keys.length} attributes, more than ${maxAttributes}`,
    );
  }
  const weights = new Map<string, number>();
  for (const key of keys) {
    checkAttribute(key, `weights[${JSON.stringify(key)}]`, 'attribute name');
    const w = raw[key];
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) {
      throw new ProfileError(`weights[${JSON.stringify(key)}]`, 'must be a finite number > 0');
    }
    weights.set(key, w);
  }
  return weights;
}

function parseRelations(
  raw: unknown,
  weights: Map<string, number>,
  maxRelations: number,
): Relation[] {
  if (!Array.isArray(raw)) throw new ProfileError('relations', 'must be an array of [a, b, rel]');
  if (raw.length > maxRelations) {
    throw new ProfileError('relations', `holds ${raw.length} relations, more than ${maxRelations}`);
  }
  const seen = new Map<string, Set<string>>();
  const out: Relation[] = [];
  for (let i = 0; i < raw.length; i++) {
    const item: unknown = raw[i];
    const at = `relations[${i}]`;
    if (!Array.isArray(item) || item.length !== 3) {
      throw new ProfileError(at, 'must be an array [a, b, rel]');
    }
    const [a, b, rel] = item as unknown[];
    for (const [j, end] of [a, b].entries()) {
      if (typeof end !== 'string') throw new ProfileError(`${at}[${j}]`, 'must be a string');
      if (!weights.has(end)) {
        throw new ProfileError(
          `${at}[${j}]`,
          `${JSON.stringify(end)} is not an attribute of weights`,
        );
      }
    }
    if (a === b) throw new ProfileError(at, 'relates an attribute to itself');
    if (typeof rel !== 'number' || !Number.isFinite(rel) || rel < 0) {
      throw new ProfileError(`${at}[2]`, 'must be a finite number >= 0');
    }
    const [lo, hi] =
      (a as string) < (b as string) ? [a as string, b as string] : [b as string, a as string];
    let row = seen.get(lo);
    if (row === undefined) {
      row = new Set();
      seen.set(lo, row);
    }
    if (row.has(hi)) {
      throw new ProfileError(at, `repeats the pair ${JSON.stringify(lo)}, ${JSON.stringify(hi)}`);
    }
    row.add(hi);
    out.push([a as string, b as string, rel]);
  }
  return out;
}

function checkAttribute(name: string, field: string, what: string): void {
  if (name.length === 0) throw new ProfileError(field, `${what} must not be empty`);
  if (!name.isWellFormed()) throw new ProfileError(field, `${what} must be well-formed Unicode`);
  // A UTF-16 unit encodes to at most 3 UTF-8 bytes: only long names need the exact count.
  if (name.length * 3 > MAX_ATTRIBUTE_BYTES && utf8Length(name) > MAX_ATTRIBUTE_BYTES) {
    throw new ProfileError(field, `${what} is longer than ${MAX_ATTRIBUTE_BYTES} UTF-8 bytes`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
