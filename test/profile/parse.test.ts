import { describe, expect, it } from 'vitest';
import { ProfileError, parseProfile } from '../../src/index.ts';
import { FIG_4_7_P1 } from '../fixtures.ts';

function errorOf(json: unknown, opts = {}): string {
  try {
    parseProfile(json, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return (err as Error).message;
  }
  throw new Error('expected a ProfileError');
}

describe('parseProfile', () => {
  it('accepts the contract example and keeps weights, order and relations', () => {
    const p = parseProfile({
      weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 },
      relations: [
        ['Verdi', 'Rigoletto', 0.5],
        ['canto', 'Verdi', 0.6],
      ],
      id: 'c-1',
      user: 'ignored',
    });
    expect([...p.attributes()]).toEqual(['canto', 'Verdi', 'Rigoletto', 'chitarra']);
    expect(p.size).toBe(4);
    expect(p.isMatrix).toBe(true);
    expect(p.weight('Rigoletto')).toBe(0.62);
    expect(p.relation('Rigoletto', 'Verdi')).toBe(0.5);
    expect(p.relation('Verdi', 'Rigoletto')).toBe(0.5);
    expect(p.relation('canto', 'chitarra')).toBe(0);
    expect(p.toJSON()).toEqual({
      weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 },
      relations: [
        ['Verdi', 'Rigoletto', 0.5],
        ['canto', 'Verdi', 0.6],
      ],
    });
  });

  it('round-trips through JSON text', () => {
    const p = parseProfile(JSON.stringify(FIG_4_7_P1));
    expect(parseProfile(JSON.parse(JSON.stringify(p))).toJSON()).toEqual(p.toJSON());
  });

  it('treats a profile without relations as a weighted vector', () => {
    const p = parseProfile({ weights: { a: 1 } });
    expect(p.isMatrix).toBe(false);
    expect(p.toJSON()).toEqual({ weights: { a: 1 } });
  });

  it.each([
    [null, 'profile: must be a JSON object'],
    [[1, 2], 'profile: must be a JSON object'],
    ['{"weights": ', 'profile: not valid JSON'],
    [{}, 'weights: is required'],
    [{ weights: [] }, 'weights: must be an object'],
    [{ weights: {} }, 'weights: must hold at least 1 attribute'],
    [{ weights: { x: 0 } }, 'weights["x"]: must be a finite number > 0'],
    [{ weights: { x: -1 } }, 'weights["x"]: must be a finite number > 0'],
    [{ weights: { x: '1' } }, 'weights["x"]: must be a finite number > 0'],
    [{ weights: { x: null } }, 'weights["x"]: must be a finite number > 0'],
    [{ weights: { '': 1 } }, 'weights[""]: attribute name must not be empty'],
    [{ weights: { ['é'.repeat(129)]: 1 } }, 'longer than 256 UTF-8 bytes'],
    [{ weights: { '\ud800x': 1 } }, 'well-formed Unicode'],
    [{ weights: { a: 1 }, relations: {} }, 'relations: must be an array'],
    [
      { weights: { a: 1, b: 1 }, relations: [['a', 'b']] },
      'relations[0]: must be an array [a, b, rel]',
    ],
    [
      { weights: { a: 1, b: 1 }, relations: [['a', 'c', 1]] },
      'relations[0][1]: "c" is not an attribute',
    ],
    [{ weights: { a: 1, b: 1 }, relations: [[1, 'b', 1]] }, 'relations[0][0]: must be a string'],
    [
      { weights: { a: 1, b: 1 }, relations: [['a', 'a', 1]] },
      'relations[0]: relates an attribute to itself',
    ],
    [
      { weights: { a: 1, b: 1 }, relations: [['a', 'b', -0.1]] },
      'relations[0][2]: must be a finite number >= 0',
    ],
    [
      { weights: { a: 1, b: 1 }, relations: [['a', 'b', Number.NaN]] },
      'relations[0][2]: must be a finite',
    ],
    [
      {
        weights: { a: 1, b: 1 },
        relations: [
          ['a', 'b', 0.1],
          ['b', 'a', 0.2],
        ],
      },
      'relations[1]: repeats the pair "a", "b"',
    ],
  ])('rejects %j with a message naming the field', (json, message) => {
    expect(errorOf(json)).toContain(message);
  });

  it('rejects NaN and infinite weights (not representable in JSON, but reachable in code)', () => {
    expect(errorOf({ weights: { x: Number.NaN } })).toBe(
      'weights["x"]: must be a finite number > 0',
    );
    expect(errorOf({ weights: { x: Number.POSITIVE_INFINITY } })).toBe(
      'weights["x"]: must be a finite number > 0',
    );
  });

  it('accepts 256-byte attributes and enforces the attribute and relation limits', () => {
    expect(parseProfile({ weights: { ['é'.repeat(128)]: 1 } }).size).toBe(1);
    const many = Object.fromEntries(Array.from({ length: 4097 }, (_, i) => [`t${i}`, 1]));
    expect(errorOf({ weights: many })).toBe('weights: holds 4097 attributes, more than 4096');
    expect(parseProfile({ weights: many }, { maxAttributes: 5000 }).size).toBe(4097);
    expect(errorOf({ weights: { a: 1 } }, { maxAttributes: 0 })).toContain('more than 0');
    const rel = {
      weights: { a: 1, b: 1, c: 1 },
      relations: [
        ['a', 'b', 1],
        ['a', 'c', 1],
      ],
    };
    expect(errorOf(rel, { maxRelations: 1 })).toBe('relations: holds 2 relations, more than 1');
  });

  it('keeps an attribute named like an Object.prototype member as plain data', () => {
    const p = parseProfile(JSON.parse('{"weights": {"__proto__": 2, "constructor": 3}}'));
    expect(p.weight('__proto__')).toBe(2);
    expect(p.weight('constructor')).toBe(3);
    expect(p.weight('toString')).toBe(0);
  });
});
