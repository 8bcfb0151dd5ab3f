/**
 * Hostile JSON-RPC requests: values of every kind (NaN-like strings, huge strings, nesting 10^5
 * deep, wrongly typed JSON), profiles every rule refuses, and params of each method that are
 * refused whatever the node holds, or may be valid.
 */
import fc from 'fast-check';
import { parseProfile } from '../../../src/profile/parse.ts';
import type { MethodName } from '../../../src/rpc/params.ts';
import { isObject } from './answers.ts';

export const HEX64 = /^[0-9a-f]{64}$/;
const json = fc.jsonValue({ maxDepth: 3 });
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
export const anyString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.oneof(loneSurrogate, fc.constantFrom('a', 'é', '😀', '"', '\\')),
    maxLength: 8,
  }),
);
const NAN_LIKE = [
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '1e999',
  '0x10',
  '',
  ' ',
  'null',
  'true',
  '[]',
  '{}',
];
const hostileScalar = fc.oneof(
  fc.constantFrom(...NAN_LIKE),
  fc.constantFrom(
    -1,
    -0,
    0,
    0.5,
    1.5,
    -1e308,
    1e308,
    2 ** 53,
    -(2 ** 53),
    Number.MAX_SAFE_INTEGER + 2,
    1001,
    1e6 + 1,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  anyString,
);
/** A string of up to a megabyte (few of them: each is sent). */
export const hugeString = fc
  .tuple(fc.integer({ min: 1_000, max: 1_000_000 }), fc.constantFrom('x', 'é', '"', '\\u0000'))
  .map(([n, c]) => c.repeat(Math.ceil(n / c.length)));
/** A placeholder replaced in the body text by `depth` nested arrays or objects. */
const deep = fc
  .tuple(fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constantFrom(10_000, 100_000)), fc.boolean())
  .map(([depth, arrays]) => `\u0000deep:${arrays ? 'a' : 'o'}:${depth}\u0000`);
export const hostile = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 4, arbitrary: json },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.array(json, { maxLength: 3 })) },
);

function parses(profile: unknown): boolean {
  try {
    parseProfile(profile);
    return true;
  } catch {
    return false;
  }
}

const attr = fc.oneof(
  fc.constantFrom('canto', 'Verdi', 'a', '', '__proto__', 'x'.repeat(257)),
  anyString,
);
/** Profiles every one of which a rule refuses. */
const badProfile = fc
  .oneof(
    json,
    hostileScalar,
    deep,
    fc.record(
      {
        weights: fc.oneof(
          fc.dictionary(attr, fc.oneof(hostileScalar, fc.double({ min: 0.1, max: 5 })), {
            maxKeys: 5,
          }),
          hostile,
        ),
        relations: fc.oneof(
          fc.array(fc.tuple(attr, attr, hostileScalar), { maxLength: 4 }),
          hostile,
        ),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom(
      '{"weights":{"a":NaN}}',
      '{"weights":{"a":1e999}}',
      { weights: {} },
      { weights: { a: -1 } },
      { weights: { a: 0 } },
      { weights: { a: '1' } },
      { weights: { '': 1 } },
      { weights: [1] },
      {
        weights: { a: 1, b: 1 },
        relations: [
          ['a', 'b', 1],
          ['b', 'a', 1],
        ],
      },
      { weights: { a: 1 }, relations: [['a', 'a', 1]] },
      { weights: { a: 1 }, relations: [['a', 'zz', 1]] },
      { weights: { a: 1, b: 1 }, relations: [['a', 'b', -1]] },
      { weights: { a: 1 }, relations: null },
      { weights: Object.fromEntries(Array.from({ length: 4097 }, (_, i) => [`t${i}`, 1])) },
    ),
  )
  .filter((p) => (typeof p === 'string' ? p.includes('\u0000deep') || !parses(p) : !parses(p)));

/** Hostile values that stay in the JSON text (undefined would drop the field: maybe valid). */
const present = hostile.filter((v) => v !== undefined);
const intOutside = (min: number, max: number) =>
  present.filter((v) => !(typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max));
const badId = present.filter((v) => !(typeof v === 'string' && HEX64.test(v)));
const badContacts = fc.oneof(
  present.filter((v) => !(Array.isArray(v) && v.every((a) => typeof a === 'string'))),
  fc.constant([]),
  fc.array(
    anyString.filter((a) => !a.includes('/p2p/')),
    { minLength: 1, maxLength: 3 },
  ),
  fc.constant(['/ip4/127.0.0.1/tcp/1']),
);
/** Values each param refuses. */
const BAD: Record<string, fc.Arbitrary<unknown>> = {
  profile: badProfile,
  id: badId,
  notify: intOutside(0, 1000),
  k: intOutside(1, 1000),
  since: intOutside(0, Number.MAX_SAFE_INTEGER),
  minSize: intOutside(1, 1_000_000),
  minFreq: present.filter((v) => !(typeof v === 'number' && v >= 0)),
  contacts: badContacts,
};
const REQUIRED: Record<string, string[]> = {
  'community.create': ['profile'],
  'community.update': ['id', 'profile'],
  'community.dissolve': ['id'],
  'community.get': ['id'],
  'community.search': ['profile'],
  'community.join': ['profile'],
};
const OPTIONAL: Record<string, string[]> = {
  'community.create': ['contacts', 'notify'],
  'community.update': ['contacts', 'notify'],
  'community.search': ['k'],
  'community.join': ['minFreq', 'minSize', 'k'],
  'notifications.list': ['since'],
};

/** Params of `method`, refused whatever the node holds. */
export function invalidParams(method: MethodName, template: Record<string, unknown>) {
  const fields = [...(REQUIRED[method] ?? []), ...(OPTIONAL[method] ?? [])];
  const known = new Set(fields);
  const ways: fc.Arbitrary<unknown>[] = [
    // an unknown field
    fc
      .tuple(
        anyString.filter((k) => !known.has(k)),
        present,
      )
      .map(([k, v]) => Object.defineProperty({ ...template }, k, { value: v, enumerable: true })),
    // params that are not an object (absent params are fine for the methods without fields)
    hostile.filter(
      (v) =>
        !isObject(v) && (v !== undefined || (known.size > 0 && method !== 'notifications.list')),
    ),
  ];
  if (fields.length > 0) {
    ways.push(
      fc
        .constantFrom(...fields)
        .chain((f) => (BAD[f] as fc.Arbitrary<unknown>).map((v) => ({ ...template, [f]: v }))),
    );
  }
  if ((REQUIRED[method] ?? []).length > 0) {
    ways.push(
      fc.constantFrom(...(REQUIRED[method] as string[])).map((f) => {
        const o = { ...template };
        delete o[f];
        return o;
      }),
    );
  }
  return fc.oneof(...ways);
}

/** Params that may be valid: a template with one field replaced by anything (read-only methods). */
export function anyParams(template: Record<string, unknown>) {
  const keys = Object.keys(template);
  return fc.oneof(
    json,
    keys.length === 0
      ? fc.constant(template)
      : fc.tuple(fc.constantFrom(...keys), hostile).map(([k, v]) => ({ ...template, [k]: v })),
  );
}
