/**
 * Simple tabulation hashing (Zobrist; Pătraşcu and Thorup): each of the n·m functions XORs 8
 * random table entries, one per byte of the attribute hash. Same cost as the compiled thesis
 * scheme (it is the same byte-table machinery), but the tables are random instead of linear,
 * which Pătraşcu and Thorup show makes the min-wise bias vanish as sets grow.
 */
import { byteOffsets, FUNCTION_WORDS, tableMinima } from './byte-tables.ts';
import type { LshFamily } from './family.ts';
import type { SeededStream } from './random.ts';

/** `functions` random tabulation functions with outputs of `bits` bits. */
export function randomTables(functions: number, bits: number, rng: SeededStream): Uint32Array {
  const t = rng.fill(new Uint32Array(functions * FUNCTION_WORDS));
  if (bits < 64) {
    const loMask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
    for (let i = 0; i < t.length; i += 2) {
      t[i] = 0;
      t[i + 1] = (t[i + 1] as number) & loMask;
    }
  }
  return t;
}

export function tabulationFamily(n: number, m: number, bits: number, rng: SeededStream): LshFamily {
  const t = randomTables(n * m, bits, rng);
  return {
    name: 'tabulation',
    n,
    m,
    bits,
    minima(h, count, out) {
      tableMinima(t, n * m, byteOffsets(h, count), count, out);
    },
  };
}
