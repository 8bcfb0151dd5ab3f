import fc from 'fast-check';
import { type Profile, parseProfile } from '../src/index.ts';

const ATTRS = Array.from({ length: 12 }, (_, i) => `a${i}`);
const weight = fc.double({ min: 0.001, max: 10, noNaN: true, noDefaultInfinity: true });
const rel = fc.double({ min: 0, max: 2, noNaN: true, noDefaultInfinity: true });

/** Weighted vectors over a small alphabet, so that random pairs overlap. */
export const vectorArb: fc.Arbitrary<Profile> = fc
  .uniqueArray(fc.constantFrom(...ATTRS), { minLength: 1, maxLength: ATTRS.length })
  .chain((attrs) =>
    fc.tuple(
      fc.constant(attrs),
      fc.array(weight, { minLength: attrs.length, maxLength: attrs.length }),
    ),
  )
  .map(([attrs, ws]) =>
    parseProfile({ weights: Object.fromEntries(attrs.map((a, i) => [a, ws[i]])) }),
  );

/** Adjacency matrices: a vector plus relations on a random subset of its pairs. */
export const matrixArb: fc.Arbitrary<Profile> = vectorArb.chain((v) => {
  const attrs = [...v.attributes()];
  const pairs: [string, string][] = [];
  for (let i = 0; i < attrs.length; i++) {
    for (let j = i + 1; j < attrs.length; j++) pairs.push([attrs[i] as string, attrs[j] as string]);
  }
  return fc
    .subarray(pairs)
    .chain((chosen) =>
      fc
        .array(rel, { minLength: chosen.length, maxLength: chosen.length })
        .map((rs) => ({ chosen, rs })),
    )
    .map(({ chosen, rs }) =>
      parseProfile({ ...v.toJSON(), relations: chosen.map(([a, b], i) => [a, b, rs[i]]) }),
    );
});

export const profileArb: fc.Arbitrary<Profile> = fc.oneof(vectorArb, matrixArb);
