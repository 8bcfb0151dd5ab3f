/**
 * Hostile wire profiles and profile JSON for `profileFromWire` and `parseProfile` (fast-check,
 * `RUNS` cases a property): NaN / ±Infinity / negative / zero weights, duplicate attributes and
 * relations, unknown relation ends, names of every kind, nesting 10^5 deep.
 *
 * Property: exactly the profiles the rules allow (an oracle written independently), else a
 * FieldError (ProfileError from parseProfile) with a message; never a TypeError, a RangeError or
 * a stack overflow.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { profileFromWire } from '../../../src/net/wire-profile.ts';
import { FieldError, ProfileError } from '../../../src/profile/errors.ts';
import { type ParseOptions, parseProfile } from '../../../src/profile/parse.ts';
import { definedOnly } from '../../../src/util/defined.ts';
import { attempt, cases, RUNS, tally } from './check.ts';
import {
  attrName,
  checkProfile,
  hostileWireProfile,
  limitsArb,
  profileVerdict,
  weightValue,
} from './profiles.ts';
import { anyString, DEEP, withBadField } from './values.ts';

describe('wire profiles and profile JSON under hostile values', () => {
  it(`profileFromWire: exactly the profiles the rules allow, else a FieldError (${cases(RUNS)} cases)`, () => {
    const seen = tally();
    fc.assert(
      fc.property(hostileWireProfile, limitsArb, (w, limits) => {
        const p = attempt(() => profileFromWire(w, limits), FieldError);
        seen.note(p !== null);
        const valid = profileVerdict(w.w, w.r, limits);
        expect(p !== null).toBe(valid);
        if (p !== null) checkProfile(p, w.w, w.r);
      }),
      {
        numRuns: RUNS,
        examples: [
          [{ w: [['a', 1]], r: [] }, {}],
          [{ w: [['__proto__', 1]] }, {}],
          [
            {
              w: [
                ['a', 1],
                ['a', 1],
              ],
            },
            {},
          ],
          [
            {
              w: [
                ['a', 1],
                ['b', 1],
              ],
              r: [
                ['a', 'b', 1],
                ['b', 'a', 2],
              ],
            },
            {},
          ],
          [{ w: [['a', Number.NaN]] }, {}],
          [{ w: [['a', -0]] }, {}],
        ],
      },
    );
    seen.expectBoth();
  });

  // Any JSON value as a weight or a relation, objects with inherited-looking names, extra fields.
  const hostileWeights = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.dictionary(attrName, fc.oneof(weightValue, fc.jsonValue({ maxDepth: 2 })), {
        maxKeys: 6,
      }),
    },
    fc.jsonValue({ maxDepth: 2 }),
  );
  const hostileRelations = fc.oneof(
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.tuple(attrName, attrName, weightValue) },
        fc.array(fc.oneof(attrName, weightValue, fc.jsonValue({ maxDepth: 1 })), { maxLength: 4 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      { maxLength: 5 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  // Profiles built from the hostile wire profiles (relations mostly between their attributes).
  const fromWire = fc
    .tuple(hostileWireProfile, fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }))
    .map(([w, id]) => definedOnly({ weights: Object.fromEntries(w.w), relations: w.r, id }));
  const profileValue = fc.oneof(
    { weight: 6, arbitrary: fromWire },
    { weight: 2, arbitrary: withBadField(fromWire) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          weights: hostileWeights,
          relations: hostileRelations,
          id: fc.jsonValue({ maxDepth: 1 }),
          user: anyString,
        },
        { requiredKeys: [] },
      ),
    },
    fc.jsonValue({ maxDepth: 3 }),
    fc.anything({ maxDepth: 2 }),
  );
  const jsonText = (v: unknown): string | undefined =>
    JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x));
  // The same as JSON text, cut or garbled at random places.
  const profileText = fc.oneof(
    profileValue.map((v) => jsonText(v) ?? 'undefined'),
    fc.tuple(profileValue, fc.nat(), fc.nat(), anyString).map(([v, a, b, junk]) => {
      const t = jsonText(v) ?? '';
      const i = t.length === 0 ? 0 : a % t.length;
      return t.slice(0, i) + junk + t.slice(i + (t.length === 0 ? 0 : b % 4));
    }),
    anyString,
  );

  /** The rules, applied to a parsed JSON value. */
  function verdict(value: unknown, limits: ParseOptions): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const { weights, relations } = value as { weights?: unknown; relations?: unknown };
    if (typeof weights !== 'object' || weights === null || Array.isArray(weights)) return false;
    return profileVerdict(
      Object.keys(weights).map((k) => [k, (weights as Record<string, unknown>)[k]]),
      relations,
      limits,
    );
  }

  it(`parseProfile: exactly the profiles the rules allow, else a ProfileError (${cases(RUNS)} cases)`, () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.oneof(profileValue, profileText), limitsArb, (input, limits) => {
        const p = attempt(() => parseProfile(input, limits), ProfileError);
        seen.note(p !== null);
        let value: unknown = input;
        if (typeof input === 'string') {
          try {
            value = JSON.parse(input);
          } catch {
            expect(p).toBeNull();
            return;
          }
        }
        expect(p !== null).toBe(verdict(value, limits));
        if (p !== null) {
          const { weights, relations } = value as {
            weights: Record<string, unknown>;
            relations?: unknown;
          };
          checkProfile(p, Object.entries(weights), relations);
        }
      }),
      {
        numRuns: RUNS,
        examples: [
          ['{"weights":{"__proto__":1}}', {}],
          [
            {
              weights: { a: 1, b: 2 },
              relations: [
                ['a', 'b', 1],
                ['b', 'a', 1],
              ],
            },
            {},
          ],
          [{ weights: { a: Number.POSITIVE_INFINITY } }, {}],
          [{ weights: { a: 1 }, relations: null }, {}],
          ['{"weights":{"a":1e999}}', {}],
          [`{"weights":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`, {}],
        ],
      },
    );
    seen.expectBoth();
  });

  it('parseProfile refuses 10^5-deep nesting, as JSON text and as values', () => {
    let deep: unknown = 1;
    for (let i = 0; i < DEEP; i++) deep = [deep];
    let deepObject: unknown = 1;
    for (let i = 0; i < DEEP; i++) deepObject = { a: deepObject };
    const inputs = [
      { weights: deep },
      { weights: deepObject },
      { weights: { a: deep } },
      { weights: { a: 1 }, relations: deep },
      { weights: { a: 1, b: 1 }, relations: [['a', 'b', deep]] },
      `{"weights":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`,
      `{"weights":{"a":1},"relations":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`,
      `{"weights":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`,
      '['.repeat(10 * DEEP),
    ];
    for (const input of inputs) {
      expect(attempt(() => parseProfile(input), ProfileError)).toBeNull();
    }
  });
});
