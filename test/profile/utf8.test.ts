import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../src/profile/utf8.ts';

describe('utf8Length', () => {
  it('agrees with Node’s Buffer.byteLength on any string, lone surrogates included', () => {
    for (const s of ['', 'a', 'é', '€', '😀', '\ud800', '\udc00x', 'a\ud83d', 'Verdi’s'])
      expect(utf8Length(s), JSON.stringify(s)).toBe(Buffer.byteLength(s, 'utf8'));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
      }),
      { numRuns: 10_000 },
    );
  });
});
