/**
 * Hostile profiles (attribute names and weights of every kind, duplicates, unknown relation
 * ends) and an oracle of the profile rules, written independently of src/profile.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { WireProfile } from '../../../src/net/wire-profile.ts';
import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_RELATIONS,
  MAX_ATTRIBUTE_BYTES,
  type ParseOptions,
  parseProfile,
} from '../../../src/profile/parse.ts';
import { Profile } from '../../../src/profile/profile.ts';
import { anyString, hostileNumber } from './values.ts';

const LONG_NAMES = ['x'.repeat(MAX_ATTRIBUTE_BYTES), 'x'.repeat(MAX_ATTRIBUTE_BYTES + 1)];
LONG_NAMES.push('é'.repeat(MAX_ATTRIBUTE_BYTES / 2), 'é'.repeat(MAX_ATTRIBUTE_BYTES / 2 + 1));
export const attrName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c', 'd') },
  fc.constantFrom('', '__proto__', 'toString', 'constructor', '0', '1', '-1', ...LONG_NAMES),
  anyString,
);
export const weightValue = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: 0.001, max: 10 }) },
  hostileNumber,
);
/** Wire profiles as profileFromWire takes them (the codec's schema holds), rules broken freely. */
export const hostileWireProfile: fc.Arbitrary<WireProfile> = fc
  .tuple(
    fc.array(fc.tuple(attrName, weightValue), { maxLength: 7 }),
    fc.option(
      fc.array(fc.tuple(fc.oneof(fc.nat(), attrName), fc.oneof(fc.nat(), attrName), weightValue), {
        maxLength: 6,
      }),
      { nil: undefined },
    ),
  )
  .map(([w, r]) => {
    const names = w.map(([a]) => a);
    // Relation ends mostly pick attributes of the profile, so that later rules are reached.
    const end = (e: number | string) =>
      typeof e === 'number' && names.length > 0 ? (names[e % names.length] as string) : String(e);
    const out: WireProfile = { w };
    if (r !== undefined) out.r = r.map(([a, b, x]) => [end(a), end(b), x]);
    return out;
  });
export const limitsArb: fc.Arbitrary<ParseOptions> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  fc.record({
    maxAttributes: fc.integer({ min: 1, max: 5 }),
    maxRelations: fc.integer({ min: 1, max: 3 }),
  }),
);

function nameOk(a: string): boolean {
  return a.length > 0 && a.isWellFormed() && Buffer.byteLength(a, 'utf8') <= MAX_ATTRIBUTE_BYTES;
}

const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
const nonNegative = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** Whether the profile rules accept these weights and relations (written independently). */
export function profileVerdict(
  weights: [string, unknown][],
  relations: unknown,
  limits: ParseOptions,
): boolean {
  const maxA = limits.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxR = limits.maxRelations ?? DEFAULT_MAX_RELATIONS;
  const names = new Set(weights.map(([a]) => a));
  if (names.size !== weights.length || names.size === 0 || names.size > maxA) return false;
  if (!weights.every(([a, w]) => nameOk(a) && positive(w))) return false;
  if (relations === undefined) return true;
  if (!Array.isArray(relations) || relations.length > maxR) return false;
  const pairs = new Set<string>();
  for (const item of relations) {
    if (!Array.isArray(item) || item.length !== 3) return false;
    const [a, b, rel] = item as unknown[];
    if (typeof a !== 'string' || typeof b !== 'string') return false;
    if (!names.has(a) || !names.has(b) || a === b || !nonNegative(rel)) return false;
    const pair = JSON.stringify([a, b].sort());
    if (pairs.has(pair)) return false;
    pairs.add(pair);
  }
  return true;
}

/** A profile every rule holds for, holding exactly these weights and relations. */
export function checkProfile(p: Profile, weights: [string, unknown][], relations: unknown): void {
  expect(p).toBeInstanceOf(Profile);
  const byName = (x: readonly unknown[], y: readonly unknown[]) =>
    String(x[0]) < String(y[0]) ? -1 : String(x[0]) > String(y[0]) ? 1 : 0;
  expect([...p.weights].sort(byName)).toEqual([...weights].sort(byName));
  for (const [a, w] of p.weights) expect(nameOk(a) && positive(w)).toBe(true);
  expect(p.isMatrix).toBe(relations !== undefined);
  expect(p.relations).toEqual(relations ?? []);
  // what the profile says of itself parses back to the same profile
  expect(parseProfile(p.toJSON()).toJSON()).toEqual(p.toJSON());
}
